/** Reading a ComfyUI history entry (`GET /history/{prompt_id}`) as a run outcome. */
import type { OutputRef, RunError, TerminalExecutionState } from '@runload/core';
import { stripBackendPaths } from './backend-paths.js';

type Message = [string, Record<string, unknown>];

export interface HistoryEntry {
  readonly prompt?: unknown[];
  readonly outputs?: Record<string, Record<string, unknown>>;
  readonly status?: { status_str?: string; completed?: boolean; messages?: Message[] };
}

/** Every downloadable file (an item with `filename` and type `output`) in the entry's outputs. */
export function outputRefs(entry: HistoryEntry): OutputRef[] {
  const refs: OutputRef[] = [];
  for (const [nodeId, ui] of Object.entries(entry.outputs ?? {})) {
    for (const value of Object.values(ui ?? {})) {
      if (!Array.isArray(value)) continue;
      for (const item of value) {
        if (item && typeof item === 'object' && typeof item.filename === 'string' && item.type === 'output') {
          refs.push({ nodeId, filename: item.filename, subfolder: String(item.subfolder ?? ''), type: 'output' });
        }
      }
    }
  }
  return refs;
}

function timestamp(messages: Message[], type: string): number | null {
  const found = messages.find((m) => m[0] === type)?.[1]?.['timestamp'];
  return typeof found === 'number' ? found : null;
}

/** The outcome of a finished prompt. Timing comes from the server's own execution timestamps. */
export function outcomeOf(entry: HistoryEntry): TerminalExecutionState {
  const messages = entry.status?.messages ?? [];
  const start = timestamp(messages, 'execution_start');
  const last = messages[messages.length - 1];
  const end = last && typeof last[1]?.['timestamp'] === 'number' ? (last[1]['timestamp'] as number) : null;
  const timing = start !== null && end !== null ? { startedAtMs: start, finishedAtMs: end } : null;
  if (!entry.status || entry.status.status_str !== 'error') return { state: 'succeeded', outputs: outputRefs(entry), timing };
  if (last?.[0] === 'execution_interrupted') return { state: 'interrupted', timing };
  const data = (messages.find((m) => m[0] === 'execution_error')?.[1] ?? {}) as Record<string, unknown>;
  const error: RunError = {
    code: 'EXECUTION_ERROR',
    message: stripBackendPaths(String(data['exception_message'] ?? 'The workflow failed').trim()),
    nodeId: data['node_id'] === undefined ? null : String(data['node_id']),
    nodeType: data['node_type'] === undefined ? null : String(data['node_type']),
    details: { exception_type: data['exception_type'] ?? null },
  };
  return { state: 'failed', error, timing };
}
