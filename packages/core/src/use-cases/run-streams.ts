/**
 * Live run events (`GET /runs/{id}/events`): each open stream gets the run's current record, then
 * every change of status, progress, queue position or outputs, and ends after a terminal record.
 * One hub per instance follows every watched run with one batched read per tick (at most every
 * `pollMs`, so progress is sent at most that often), and at once when the work signal announces
 * a change on any instance.
 * @module
 */
import { CoreError } from '../domain/errors.js';
import { isTerminal, type Run } from '../domain/run.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { PreviewInfo, PreviewStore } from '../ports/preview-store.js';
import type { RunRepository } from '../ports/run-repository.js';
import type { StreamSlots } from '../ports/stream-slots.js';
import type { Timers } from '../ports/timers.js';
import type { WorkSignal } from '../ports/work-signal.js';
import { Pump } from '../system/pump.js';
import { SystemTimers } from '../system/system-timers.js';
import type { Principal } from './principal.js';
import { queuePositionOf, requireOwnRun, type RunView } from './get-run.js';
import { nextPreview, NO_PREVIEW_SENT, PREVIEW_EVENT_EVERY_MS, type PreviewCursor } from './run-previews.js';

export const MAX_STREAMS_PER_ACCOUNT = 20;

export interface RunStreamsOptions {
  readonly pollMs?: number;
  readonly heartbeatMs?: number;
  /**
   * How long a stream's slot holds without renewal (default 15 s; renewed every third of it): the
   * time the slots of a killed instance's streams still count against their accounts.
   */
  readonly slotLeaseMs?: number;
  readonly maxPerAccount?: number;
  /** Where the latest previews are read (each tick): without it, streams carry no previews. */
  readonly previews?: PreviewStore;
  /** A stream tells of a new preview at most this often (default 500 ms). */
  readonly previewEveryMs?: number;
  /** Drives the ticks, heartbeats and slot renewals (the event loop's timers unless given). */
  readonly timers?: Timers;
}

export interface RunStreamSink {
  /** A record to send; `last` when it is terminal (the stream ends after it). */
  record(view: RunView, last: boolean): void;
  /** A new preview of the run (at most one per `previewEveryMs`); a sink without it gets none. */
  preview?(info: PreviewInfo): void;
  /** Nothing changed for a while: keep the connection alive. */
  heartbeat(): void;
  /** The stream ends without a terminal record: this instance is stopping (the client opens it again). */
  end(): void;
}

interface Watcher {
  readonly runId: string;
  readonly holder: string;
  readonly sink: RunStreamSink;
  lastKey: string;
  preview: PreviewCursor;
  closed: boolean;
  close(): Promise<void>;
}

/** What a stream reports a change of; progress last, so a change of progress alone is told apart. */
function changeKey(view: RunView): string {
  const r = view.run;
  return JSON.stringify([r.status, view.queuePosition, r.outputs.length, r.error?.code ?? null, r.progress]);
}

function withoutProgress(key: string): string {
  return JSON.stringify((JSON.parse(key) as unknown[]).slice(0, -1));
}

export class RunStreams {
  private readonly watchers = new Set<Watcher>();
  private readonly pollMs: number;
  private readonly heartbeatMs: number;
  private readonly slotLeaseMs: number;
  private readonly max: number;
  private readonly timers: Timers;
  /** Stops the ticks, heartbeats, slot renewals and the signal's subscription (null while idle). */
  private stopFollowing: (() => void) | null = null;
  /** One poll at a time; a poll asked meanwhile makes one more after it. */
  private readonly polls = new Pump(() => this.pollPass());
  /** A tick asked for since the last poll began: the next poll may send progress. */
  private tickWanted = false;
  private readingPreviews = false;

  constructor(
    private readonly runs: RunRepository,
    private readonly slots: StreamSlots,
    private readonly signal: WorkSignal,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly options: RunStreamsOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.slotLeaseMs = options.slotLeaseMs ?? 15_000;
    this.max = options.maxPerAccount ?? MAX_STREAMS_PER_ACCOUNT;
    this.timers = options.timers ?? new SystemTimers();
  }

  /** Streams open on this instance. */
  openCount(): number {
    return this.watchers.size;
  }

  /**
   * Opens a stream on one of the caller's runs and sends its current record at once.
   * Returns the function that closes it (idempotent).
   * @throws CoreError RUN_NOT_FOUND, RATE_LIMITED (the account holds its maximum of streams)
   */
  async open(principal: Principal, runId: string, sink: RunStreamSink): Promise<() => Promise<void>> {
    const run = await requireOwnRun(this.runs, principal, runId);
    const holder = this.ids.uuid();
    const now = this.clock.now();
    if (!(await this.slots.acquire(principal.account.id, holder, this.max, now, this.slotUntil()))) {
      throw new CoreError('RATE_LIMITED', `At most ${this.max} event streams may be open at once per account`, { retryAfterSeconds: 1 });
    }
    const close = async () => {
      if (watcher.closed) return;
      watcher.closed = true;
      this.watchers.delete(watcher);
      if (this.watchers.size === 0) this.idle();
      await this.slots.release(holder);
    };
    const watcher: Watcher = { runId, holder, sink, lastKey: '', preview: NO_PREVIEW_SENT, closed: false, close };
    const view = await this.view(run);
    watcher.lastKey = changeKey(view);
    const last = isTerminal(run.status);
    sink.record(view, last);
    if (last) {
      await close();
      return close;
    }
    this.watchers.add(watcher);
    if (this.watchers.size === 1) this.busy();
    return close;
  }

  /**
   * Ends every stream open on this instance, without a terminal record, and frees their slots: the
   * instance is stopping, and its clients open their streams again (on another instance).
   */
  async closeAll(): Promise<void> {
    await Promise.all(
      [...this.watchers].map((watcher) => {
        watcher.sink.end();
        return watcher.close();
      }),
    );
  }

  private slotUntil(): Date {
    // Renewed three times per lease: a live stream never lapses; a dead instance's slots soon do.
    return new Date(this.clock.nowMs() + this.slotLeaseMs);
  }

  private async view(run: Run): Promise<RunView> {
    return { run, queuePosition: await queuePositionOf(this.runs, run) };
  }

  private busy(): void {
    if (this.stopFollowing) return; // already following (the last stream closed and a new one opened in between)
    const stops = [
      // Not awaited by the timer: a tick during a slow poll asks for one more, as before.
      this.timers.every(this.pollMs, () => {
        void this.poll(true);
      }),
      this.timers.every(this.heartbeatMs, () => this.beat()),
      this.timers.every(this.slotLeaseMs / 3, () => this.renewSlots()),
      this.signal.subscribe(() => void this.poll(false)),
    ];
    this.stopFollowing = () => {
      for (const stop of stops) stop();
    };
  }

  private idle(): void {
    this.stopFollowing?.();
    this.stopFollowing = null;
  }

  /** `tick`: the timer's poll, which may send progress; a signal's poll sends the other changes at once. */
  private poll(tick: boolean): Promise<void> {
    this.tickWanted ||= tick;
    return this.polls.request();
  }

  private async pollPass(): Promise<void> {
    const withProgress = this.tickWanted;
    this.tickWanted = false;
    await this.pollOnce(withProgress).catch(() => undefined); // a failed read is retried at the next tick
  }

  private async pollOnce(tick: boolean): Promise<void> {
    const watching = [...this.watchers];
    if (watching.length === 0) return;
    const ids = [...new Set(watching.map((w) => w.runId))];
    // One batched read for every run watched here (the repository serves a tick's reads together).
    const runs = await Promise.all(ids.map((id) => this.runs.get(id)));
    const views = new Map<string, RunView>();
    await Promise.all(runs.map(async (run) => run && views.set(run.id, await this.view(run))));
    for (const w of watching) {
      const view = views.get(w.runId);
      if (!view || w.closed) continue;
      const key = changeKey(view);
      if (key === w.lastKey) continue;
      // Progress alone waits for the tick, so it is sent at most every pollMs.
      if (!tick && withoutProgress(key) === withoutProgress(w.lastKey)) continue;
      w.lastKey = key;
      const last = isTerminal(view.run.status);
      w.sink.record(view, last);
      if (last) {
        w.closed = true;
        this.watchers.delete(w);
        await this.slots.release(w.holder).catch(() => undefined);
      }
    }
    // Read beside the records, not before the next tick's: a slow preview store never delays a run's record.
    if (tick && !this.readingPreviews) {
      this.readingPreviews = true;
      void this.sendPreviews()
        .catch(() => undefined) // a failed read is retried at the next tick
        .finally(() => (this.readingPreviews = false));
    }
    if (this.watchers.size === 0) this.idle();
  }

  /** One read of the previews of every run watched here; each stream is told of a new one at most every previewEveryMs. */
  private async sendPreviews(): Promise<void> {
    const store = this.options.previews;
    const watching = [...this.watchers].filter((w) => w.sink.preview);
    if (!store || watching.length === 0) return;
    const infos = await store.info([...new Set(watching.map((w) => w.runId))]);
    const now = this.clock.nowMs();
    for (const w of watching) {
      const info = infos.get(w.runId);
      const next = info && !w.closed ? nextPreview(w.preview, info, now, this.options.previewEveryMs ?? PREVIEW_EVENT_EVERY_MS) : null;
      if (!info || !next) continue;
      w.preview = next;
      w.sink.preview?.(info);
    }
  }

  private beat(): void {
    for (const w of this.watchers) w.sink.heartbeat();
  }

  private async renewSlots(): Promise<void> {
    const holders = [...this.watchers].map((w) => w.holder);
    await this.slots.renew(holders, this.slotUntil()).catch(() => undefined); // the next renewal tries again
  }
}
