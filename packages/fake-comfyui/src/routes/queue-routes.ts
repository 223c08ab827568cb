/**
 * `/prompt`, `/queue`, `/interrupt`, `/history` and `/free`, as ComfyUI's server.py answers them.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeHost } from '../fake-host.js';
import { asTuple, type QueueItem } from '../fake-state.js';
import { readBody, readJson, sendEmpty, sendJson } from '../http-util.js';
import { validatePrompt, type PromptGraph } from '../validation.js';

type Body = Record<string, unknown>;
const SECRETS = ['auth_token_comfy_org', 'api_key_comfy_org'];

export async function postPrompt(host: FakeHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = (await readJson(req)) as Body; // malformed JSON escapes: plain-text 500, as recorded
  const { state, settings } = host;
  const modern = settings.version !== 'legacy';
  let number: number;
  if (body['number'] !== undefined) number = Number(body['number']);
  else {
    number = body['front'] ? -state.counter : state.counter;
    state.counter += 1; // even for a prompt that then fails validation, as recorded
  }
  if (!('prompt' in body)) {
    return sendJson(res, 400, { error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} }, node_errors: {} });
  }
  const received = body['prompt'];
  if (received === null || typeof received !== 'object' || Array.isArray(received)) throw new TypeError('prompt is not a dict');
  const prompt = structuredClone(received) as PromptGraph;
  const promptId = modern && body['prompt_id'] !== undefined && body['prompt_id'] !== null ? String(body['prompt_id']) : randomUUID();
  const targets = modern && Array.isArray(body['partial_execution_targets']) ? (body['partial_execution_targets'] as unknown[]).map(String) : undefined;
  const inputFiles = state.inputFiles();
  const result = validatePrompt(prompt, { registry: host.registry, version: settings.version, inputFiles, fileExists: (ref) => state.readReference(ref) !== undefined }, targets);
  const extraData: Body = body['extra_data'] && typeof body['extra_data'] === 'object' ? { ...(body['extra_data'] as Body) } : {};
  if ('client_id' in body) extraData['client_id'] = body['client_id'];
  if (!result.ok) return sendJson(res, 400, { error: result.error, node_errors: result.nodeErrors });
  if (settings.version === '2026') {
    extraData['create_time'] = Date.now();
    for (const key of SECRETS) delete extraData[key]; // 2026 keeps secrets out of the queue item
  }
  const item: QueueItem = { number, promptId, prompt, extraData, outputs: result.outputs };
  state.pending.push(item);
  host.prompts.push({ prompt_id: promptId, number, prompt: received, client_id: extraData['client_id'] as string | undefined, extra_data: extraData, received_at: performance.timeOrigin + performance.now() });
  host.hub.broadcastStatus();
  sendJson(res, 200, { prompt_id: promptId, number, node_errors: result.nodeErrors });
  setImmediate(() => host.pump());
}

export function getPrompt(host: FakeHost, res: ServerResponse): void {
  sendJson(res, 200, { exec_info: { queue_remaining: host.state.queueRemaining() } });
}

export function getQueue(host: FakeHost, res: ServerResponse): void {
  const { running, pending } = host.state;
  sendJson(res, 200, { queue_running: running ? [asTuple(running)] : [], queue_pending: pending.map(asTuple) });
}

export async function postQueue(host: FakeHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = (await readJson(req)) as Body;
  const { state, hub } = host;
  if (body['clear']) {
    state.pending = [];
    hub.broadcastStatus();
  }
  if (Array.isArray(body['delete'])) {
    for (const id of body['delete']) {
      const index = state.pending.findIndex((item) => item.promptId === id);
      if (index < 0) continue;
      state.pending.splice(index, 1);
      hub.broadcastStatus();
    }
  }
  sendEmpty(res);
}

export async function postInterrupt(host: FakeHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: Body = {};
  try {
    body = ((await readJson(req)) ?? {}) as Body;
  } catch {
    body = {}; // no body or invalid JSON: a global interrupt
  }
  const target = host.settings.version === 'legacy' ? undefined : body['prompt_id'];
  if (!target || host.state.running?.promptId === target) host.worker.interruptRequested = true;
  sendEmpty(res);
}

export function getHistory(host: FakeHost, url: URL, res: ServerResponse): void {
  let entries = [...host.state.history.entries()];
  const max = url.searchParams.get('max_items');
  const offset = url.searchParams.get('offset');
  if (offset !== null) entries = entries.slice(Math.max(0, Number(offset)), max !== null ? Math.max(0, Number(offset)) + Number(max) : undefined);
  else if (max !== null) entries = Number(max) > 0 ? entries.slice(-Number(max)) : [];
  sendJson(res, 200, Object.fromEntries(entries));
}

export function getHistoryEntry(host: FakeHost, id: string, res: ServerResponse): void {
  const entry = host.state.history.get(id);
  sendJson(res, 200, entry ? { [id]: entry } : {});
}

export async function postHistory(host: FakeHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = (await readJson(req)) as Body;
  if (body['clear']) host.state.history.clear();
  if (Array.isArray(body['delete'])) for (const id of body['delete']) host.state.history.delete(String(id));
  sendEmpty(res);
}

export async function postFree(req: IncomingMessage, res: ServerResponse): Promise<void> {
  await readBody(req);
  sendEmpty(res);
}
