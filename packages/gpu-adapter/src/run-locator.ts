/**
 * Where a run stands on one ComfyUI server, from `/queue` then `/history`, and the
 * server's prompt id of each run. Servers that honour a client prompt id use the run id; older
 * ones choose their own, which is found again (even after a restart of runload) through the
 * `runload_run_id` mark runload puts in every prompt's `extra_data`.
 * @module
 */
import type { ExecutionState } from '@runload/core';
import type { ComfyUiHttp } from './comfyui-http.js';
import { outcomeOf, type HistoryEntry } from './history-outcome.js';

type QueueTuple = [number, string, unknown, Record<string, unknown> | undefined, unknown];

export interface QueueSnapshot {
  readonly queue_running: QueueTuple[];
  readonly queue_pending: QueueTuple[];
}

/** How far back `/history` is scanned for a run whose server id this process does not know. */
const HISTORY_SCAN = 1000;

export class RunLocator {
  /** Server prompt id by run id, where the server chose its own id. */
  private readonly promptIds = new Map<string, string>();

  constructor(private readonly http: ComfyUiHttp) {}

  promptIdOf(runId: string): string {
    return this.promptIds.get(runId) ?? runId;
  }

  /** Records the id the server gave a run (older ComfyUI ignores ours). */
  remember(runId: string, promptId: string): void {
    if (promptId !== runId) this.promptIds.set(runId, promptId);
  }

  /** The run id a socket message's prompt id belongs to. */
  runIdOf(promptId: string): string {
    for (const [runId, pid] of this.promptIds) if (pid === promptId) return runId;
    return promptId;
  }

  /** True when the server's queue shows the run executing now. */
  isRunning(queue: QueueSnapshot, runId: string): boolean {
    return queue.queue_running.some((t) => this.matches(t, runId));
  }

  async queue(): Promise<QueueSnapshot> {
    const q = await this.http.getJson<Partial<QueueSnapshot>>('/queue');
    return { queue_running: q.queue_running ?? [], queue_pending: q.queue_pending ?? [] };
  }

  /** @param options.endAnnounced the server said the run ended: its history entry is read first, and is usually there */
  async inspect(runId: string, options: { endAnnounced?: boolean } = {}): Promise<ExecutionState> {
    if (options.endAnnounced) {
      // A history entry is final whatever the queue says; without one, the ordinary reading decides.
      const entry = await this.historyEntry(runId, { scan: false });
      if (entry) return outcomeOf(entry);
    }
    // Queue first, then history: a prompt moves between them atomically, so in this order a run
    // finishing between the reads is found in history. The second history read covers servers
    // that announce the end before writing history.
    const queue = await this.queue();
    if (this.isRunning(queue, runId)) return { state: 'running' };
    const pending = [...queue.queue_pending].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const at = pending.findIndex((t) => this.matches(t, runId));
    if (at >= 0) return { state: 'queued', position: at };
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const entry = await this.historyEntry(runId);
      if (entry) return outcomeOf(entry);
    }
    return { state: 'unknown' };
  }

  private matches(t: QueueTuple, runId: string): boolean {
    const found = t[1] === this.promptIdOf(runId) || t[3]?.['runload_run_id'] === runId;
    if (found && typeof t[1] === 'string') this.remember(runId, t[1]);
    return found;
  }

  /** @param options.scan look through recent history for a run whose server id is not known yet */
  private async historyEntry(runId: string, options: { scan: boolean } = { scan: true }): Promise<HistoryEntry | null> {
    const id = this.promptIdOf(runId);
    const direct = await this.http.getJson<Record<string, HistoryEntry>>(`/history/${encodeURIComponent(id)}`);
    if (direct[id]) return direct[id] ?? null;
    if (!options.scan || this.promptIds.has(runId)) return null;
    const recent = await this.http.getJson<Record<string, HistoryEntry>>(`/history?max_items=${HISTORY_SCAN}`);
    for (const [promptId, entry] of Object.entries(recent)) {
      const extra = entry.prompt?.[3] as Record<string, unknown> | undefined;
      if (extra?.['runload_run_id'] === runId) {
        this.remember(runId, promptId);
        return entry;
      }
    }
    return null;
  }
}
