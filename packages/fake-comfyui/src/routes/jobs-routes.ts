/** `GET /api/jobs` and `/api/jobs/{id}` of a 2026 ComfyUI: queue first, then history. */
import type { ServerResponse } from 'node:http';
import type { FakeHost } from '../fake-host.js';
import type { HistoryEntry, QueueItem } from '../fake-state.js';
import { sendJson } from '../http-util.js';

type Job = Record<string, unknown>;
const STATUSES = ['pending', 'in_progress', 'completed', 'failed'];

function compact(job: Job): Job {
  return Object.fromEntries(Object.entries(job).filter(([, v]) => v !== null && v !== undefined));
}

function workflowId(extra: Record<string, unknown>): unknown {
  return ((extra['extra_pnginfo'] as { workflow?: { id?: unknown } } | undefined)?.workflow?.id) ?? null;
}

function queuedJob(item: QueueItem, status: string): Job {
  return compact({ id: item.promptId, status, priority: item.number, create_time: item.extraData['create_time'], outputs_count: 0, workflow_id: workflowId(item.extraData) });
}

function historyJob(id: string, entry: HistoryEntry, full: boolean): Job {
  const [number, , prompt, extra] = entry.prompt;
  const messages = entry.status.messages;
  const at = (type: string) => messages.find((m) => m[0] === type)?.[1]['timestamp'];
  const last = messages.at(-1);
  const files = Object.entries(entry.outputs).flatMap(([nodeId, ui]) =>
    Object.entries(ui).flatMap(([mediaType, list]) =>
      mediaType === 'animated' || !Array.isArray(list) ? [] : list.filter((x) => x && typeof x === 'object').map((x) => ({ ...(x as object), nodeId, mediaType })),
    ),
  );
  return compact({
    id, status: entry.status.status_str === 'error' ? 'failed' : 'completed', priority: number, create_time: extra['create_time'],
    outputs_count: files.length, workflow_id: workflowId(extra),
    execution_start_time: at('execution_start'), execution_end_time: last?.[1]['timestamp'],
    execution_error: messages.find((m) => m[0] === 'execution_error')?.[1], preview_output: files[0],
    ...(full ? { outputs: entry.outputs, execution_status: entry.status, workflow: { prompt, extra_data: extra } } : {}),
  });
}

function allJobs(host: FakeHost): Job[] {
  const { running, pending, history } = host.state;
  return [
    ...(running ? [queuedJob(running, 'in_progress')] : []),
    ...pending.map((item) => queuedJob(item, 'pending')),
    ...[...history.entries()].map(([id, entry]) => historyJob(id, entry, false)),
  ];
}

export function listJobs(host: FakeHost, url: URL, res: ServerResponse): void {
  const q = url.searchParams;
  const wanted = q.get('status')?.split(',').map((s) => s.trim()).filter(Boolean);
  if (wanted?.some((s) => !STATUSES.includes(s))) return sendJson(res, 400, { error: `Invalid status value. Must be one of: ${STATUSES.join(', ')}` });
  const limit = q.get('limit') === null ? null : Number(q.get('limit'));
  if (limit !== null && !(Number.isInteger(limit) && limit > 0)) return sendJson(res, 400, { error: 'limit must be a positive integer' });
  const offset = Math.max(0, Number(q.get('offset') ?? 0) || 0);
  const sortBy = q.get('sort_by') ?? 'created_at';
  const descending = (q.get('sort_order') ?? 'desc') === 'desc';
  let jobs = allJobs(host).filter((j) => !wanted || wanted.includes(String(j['status'])));
  if (q.get('workflow_id')) jobs = jobs.filter((j) => j['workflow_id'] === q.get('workflow_id'));
  const key = (j: Job) => Number(sortBy === 'execution_duration' ? Number(j['execution_end_time'] ?? 0) - Number(j['execution_start_time'] ?? 0) : (j['create_time'] ?? 0));
  jobs.sort((a, b) => (descending ? key(b) - key(a) : key(a) - key(b)));
  const page = jobs.slice(offset, limit === null ? undefined : offset + limit);
  sendJson(res, 200, { jobs: page, pagination: { offset, limit, total: jobs.length, has_more: offset + page.length < jobs.length } });
}

export function getJob(host: FakeHost, id: string, res: ServerResponse): void {
  const { running, pending, history } = host.state;
  if (running?.promptId === id) return sendJson(res, 200, queuedJob(running, 'in_progress'));
  const item = pending.find((p) => p.promptId === id);
  if (item) return sendJson(res, 200, queuedJob(item, 'pending'));
  const entry = history.get(id);
  if (!entry) return sendJson(res, 404, { error: 'Job not found' });
  sendJson(res, 200, historyJob(id, entry, true));
}
