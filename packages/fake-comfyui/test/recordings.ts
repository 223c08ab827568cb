/** The recorded v0.3.64 exchanges (fixtures/comfyui-v0.3.64), and helpers to compare the fake with them. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface HttpRecord {
  readonly scenario: string;
  readonly method: string;
  readonly path: string;
  readonly request: Record<string, unknown> | null;
  readonly status: number;
  readonly content_type?: string;
  readonly body: unknown;
}

export interface WsMessage {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

function jsonl<T>(name: string): T[] {
  const text = readFileSync(fileURLToPath(new URL(`../fixtures/comfyui-v0.3.64/${name}`, import.meta.url)), 'utf8');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as T);
}

export const HTTP = [...jsonl<HttpRecord>('http.jsonl'), ...jsonl<HttpRecord>('http_extra.jsonl')];

/** Text messages the server sent to the main recorded connection, in order. */
export const WS: WsMessage[] = jsonl<{ conn: string; dir: string; frame?: string; msg?: WsMessage }>('ws.jsonl')
  .filter((r) => r.conn === 'main' && r.dir === 'server->client' && r.frame === 'text' && r.msg)
  .map((r) => r.msg as WsMessage);

export const CLIENT_ID = 'probe-client-a323459b-8734-4c2d-b994-3fadcda9c762';

/** The recorded exchanges of a scenario, optionally only one method and path. */
export function recorded(scenario: string, method?: string, path?: string): HttpRecord[] {
  return HTTP.filter((r) => r.scenario === scenario && (!method || r.method === method) && (!path || r.path.startsWith(path)));
}

export function one(scenario: string, method?: string, path?: string): HttpRecord {
  const found = recorded(scenario, method, path)[0];
  if (!found) throw new Error(`no recording for ${scenario} ${method ?? ''} ${path ?? ''}`);
  return found;
}

/**
 * The types of a prompt's messages from its first to its `executing{node:null}`, with the
 * broadcast `status` messages among them (or without, when other prompts' statuses interleave).
 */
export function sequenceOf(messages: readonly WsMessage[], promptId: string, withStatus = true): string[] {
  const own = (m: WsMessage) => m.data['prompt_id'] === promptId;
  const start = messages.findIndex(own);
  const end = messages.findIndex((m) => own(m) && m.type === 'executing' && m.data['node'] === null);
  if (start < 0 || end < 0) return [];
  return messages.slice(start, end + 1).filter((m) => own(m) || (withStatus && m.type === 'status')).map((m) => m.type);
}

/** The recorded prompt id of a scenario's POST /prompt. */
export function recordedPromptId(scenario: string, index = 0): string {
  return (recorded(scenario, 'POST', '/prompt')[index]?.body as { prompt_id: string }).prompt_id;
}

/** A value's shape: keys and value types, not the values (ids, timestamps, file names vary). */
export function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const shapes = value.map(shape).map((s) => JSON.stringify(s));
    return [...new Set(shapes)].sort().map((s) => JSON.parse(s) as unknown);
  }
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, shape(v)]));
  return typeof value;
}

/** The shape of one message data per type, from the first message of that type. */
export function shapesByType(messages: readonly WsMessage[]): Record<string, unknown> {
  const shapes: Record<string, unknown> = {};
  for (const m of messages) shapes[m.type] ??= shape(m.data);
  return shapes;
}
