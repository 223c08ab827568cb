/**
 * Live run events (`GET /runs/{id}/events`): each open stream gets the run's current record, then
 * every change of status, progress, queue position or outputs, and ends after a terminal record.
 * Each change a run goes through is announced, with the record it left, on the work signal (on
 * every instance): a stream shows it as it comes, so every status a run passes through is shown,
 * in order, however short the run. A status never goes back: older news is dropped. Reads from the
 * storage complete the picture: a waiting run's place in the queue (it moves as other runs leave
 * the queue) every `pollMs` and on work notifications, and every watched run every `rereadMs`, the
 * safety net for a change whose announcement was lost.
 * @module
 */
import { CoreError } from '../domain/errors.js';
import { isTerminal, isWaiting, placeInQueue, type Run } from '../domain/run.js';
import { statusRank, withChange, type RunChange } from '../domain/run-change.js';
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
  /** How often the places of waiting runs and the previews are read (default 250 ms). */
  readonly pollMs?: number;
  /** How often every watched run is read again, in case an announced change was lost (default 2 s). */
  readonly rereadMs?: number;
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
  /** The record last sent; null until the first is (changes announced before it wait in `early`). */
  run: Run | null;
  readonly early: RunChange[];
  /** `open` has returned: the stream's slot is freed by whoever ends it. */
  opened: boolean;
  lastKey: string;
  /** Counts the records sent: a read that began before one was sent is older news. */
  sent: number;
  preview: PreviewCursor;
  closed: boolean;
}

/** What a stream reports a change of. */
function changeKey(view: RunView): string {
  const r = view.run;
  return JSON.stringify([r.status, view.queuePosition, r.outputs.length, r.error?.code ?? null, r.progress]);
}

export class RunStreams {
  private readonly watchers = new Set<Watcher>();
  private readonly pollMs: number;
  private readonly rereadMs: number;
  private readonly heartbeatMs: number;
  private readonly slotLeaseMs: number;
  private readonly max: number;
  private readonly timers: Timers;
  /** Stops the timers and the subscriptions (null while no stream is open). */
  private stopFollowing: (() => void) | null = null;
  /** One read at a time; a read asked meanwhile makes one more after it. */
  private readonly reads = new Pump(() => this.readPass());
  /** The next read covers every watched run, not only the waiting ones. */
  private readAll = false;
  private readingPreviews = false;
  /** Reads and slot writes under way: a stop waits for them, so none is cut off by the storage closing. */
  private readonly underway = new Set<Promise<unknown>>();

  constructor(
    private readonly runs: RunRepository,
    private readonly slots: StreamSlots,
    private readonly signal: WorkSignal,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly options: RunStreamsOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.rereadMs = options.rereadMs ?? 2000;
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.slotLeaseMs = options.slotLeaseMs ?? 15_000;
    this.max = options.maxPerAccount ?? MAX_STREAMS_PER_ACCOUNT;
    this.timers = options.timers ?? new SystemTimers();
  }

  /** Streams open on this instance. */
  openCount(): number {
    return [...this.watchers].filter((w) => w.run !== null).length;
  }

  /**
   * Opens a stream on one of the caller's runs and sends its current record at once.
   * Returns the function that closes it (idempotent).
   * @throws CoreError RUN_NOT_FOUND, RATE_LIMITED (the account holds its maximum of streams)
   */
  async open(principal: Principal, runId: string, sink: RunStreamSink): Promise<() => Promise<void>> {
    const watcher: Watcher = { runId, holder: this.ids.uuid(), sink, run: null, early: [], opened: false, lastKey: '', sent: 0, preview: NO_PREVIEW_SENT, closed: false };
    const close = async () => {
      if (watcher.closed) return;
      this.forget(watcher);
      await this.release(watcher.holder);
    };
    // Listening before the first read: a change made meanwhile is shown after the record read.
    this.watch(watcher);
    let run: Run;
    try {
      run = await requireOwnRun(this.runs, principal, runId);
      if (!(await this.slots.acquire(principal.account.id, watcher.holder, this.max, this.clock.now(), this.slotUntil()))) {
        throw new CoreError('RATE_LIMITED', `At most ${this.max} event streams may be open at once per account`, { retryAfterSeconds: 1 });
      }
    } catch (error) {
      this.forget(watcher);
      throw error;
    }
    if (watcher.closed) {
      // Every stream was closed meanwhile (the instance is stopping).
      await this.release(watcher.holder);
      return close;
    }
    this.send(watcher, await this.view(run));
    // Of the changes announced while it opened, those the record read may predate: a later status.
    for (const change of watcher.early.splice(0)) {
      if (watcher.run && statusRank(change.status) > statusRank(watcher.run.status)) this.onChange(watcher, change);
    }
    watcher.opened = true;
    // Ended already (its run is finished): its slot is free at once.
    if (watcher.closed) await this.release(watcher.holder);
    return close;
  }

  /**
   * Ends every stream open on this instance, without a terminal record, and frees their slots: the
   * instance is stopping, and its clients open their streams again (on another instance). Resolves
   * once the streams' work under way is done: every release (those of streams that ended just
   * before included), and the reads of their runs.
   */
  async closeAll(): Promise<void> {
    const earlier = [...this.underway];
    const own = [...this.watchers].map((w) => {
      w.sink.end();
      this.forget(w);
      return this.release(w.holder);
    });
    // The failures of earlier work are their callers' (a slot not released lapses with its lease).
    const settled = await Promise.allSettled([...own, ...earlier]);
    const failed = settled.slice(0, own.length).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Frees a stream's slot. */
  private release(holder: string): Promise<void> {
    return this.track(this.slots.release(holder));
  }

  /** Counts `work` as under way until it settles. */
  private track<T>(work: Promise<T>): Promise<T> {
    this.underway.add(work);
    const done = () => void this.underway.delete(work);
    work.then(done, done);
    return work;
  }

  private slotUntil(): Date {
    // Renewed three times per lease: a live stream never lapses; a dead instance's slots soon do.
    return new Date(this.clock.nowMs() + this.slotLeaseMs);
  }

  private async view(run: Run): Promise<RunView> {
    return { run, queuePosition: await queuePositionOf(this.runs, run) };
  }

  private watch(w: Watcher): void {
    this.watchers.add(w);
    if (this.watchers.size === 1) this.busy();
  }

  private forget(w: Watcher): void {
    w.closed = true;
    this.watchers.delete(w);
    if (this.watchers.size === 0) this.idle();
  }

  /**
   * Sends `view` unless it is no news: the same as the record last sent, or an older status (a
   * status never moves back, and announcements from several instances may cross). A terminal
   * record ends the stream.
   */
  private send(w: Watcher, view: RunView): void {
    if (w.closed) return;
    if (w.run && statusRank(view.run.status) < statusRank(w.run.status)) return;
    const key = changeKey(view);
    if (key === w.lastKey) return;
    w.run = view.run;
    w.lastKey = key;
    w.sent += 1;
    const last = isTerminal(view.run.status);
    w.sink.record(view, last);
    if (!last) return;
    this.forget(w);
    // While it opens, `open` frees the slot.
    if (w.opened) void this.release(w.holder).catch(() => undefined);
  }

  /** A change announced on any instance, of the run a stream watches. */
  private onChange(w: Watcher, change: RunChange): void {
    if (w.closed || change.id !== w.runId) return;
    if (w.run === null) {
      w.early.push(change);
      return;
    }
    const run = withChange(w.run, change);
    // Back in the queue: its place there is read from the storage.
    if (isWaiting(run)) void this.read(false);
    else this.send(w, { run, queuePosition: placeInQueue(run, undefined) });
  }

  private busy(): void {
    if (this.stopFollowing) return; // already following (the last stream closed and a new one opened in between)
    const stops = [
      this.signal.subscribeChanges((change) => {
        for (const w of [...this.watchers]) {
          try {
            this.onChange(w, change);
          } catch {
            // One stream's broken sink must not keep the others from the news (the re-read tries it again).
          }
        }
      }),
      this.timers.every(this.pollMs, () => {
        this.readPreviews();
        return this.read(false);
      }),
      this.timers.every(this.rereadMs, () => this.read(true)),
      this.timers.every(this.heartbeatMs, () => this.beat()),
      this.timers.every(this.slotLeaseMs / 3, () => this.renewSlots()),
      // Work news may move waiting runs in the queue.
      this.signal.subscribe(() => void this.read(false)),
    ];
    this.stopFollowing = () => {
      for (const stop of stops) stop();
    };
  }

  private idle(): void {
    this.stopFollowing?.();
    this.stopFollowing = null;
  }

  /** `all`: every watched run; else only waiting ones (their place in the queue). */
  private read(all: boolean): Promise<void> {
    this.readAll ||= all;
    return this.track(this.reads.request());
  }

  private async readPass(): Promise<void> {
    const all = this.readAll;
    this.readAll = false;
    await this.readOnce(all).catch(() => undefined); // a failed read is retried at the next tick
  }

  private async readOnce(all: boolean): Promise<void> {
    const watching = [...this.watchers].filter((w) => w.run !== null && (all || w.run.status === 'queued'));
    if (watching.length === 0) return;
    const sentBefore = new Map(watching.map((w) => [w, w.sent]));
    const ids = [...new Set(watching.map((w) => w.runId))];
    // One batched read for every run read here (the repository serves a tick's reads together).
    const runs = await Promise.all(ids.map((id) => this.runs.get(id)));
    const views = new Map<string, RunView>();
    await Promise.all(runs.map(async (run) => run && views.set(run.id, await this.view(run))));
    for (const w of watching) {
      const view = views.get(w.runId);
      // A record sent while this read was under way is newer than what it read.
      if (view && w.sent === sentBefore.get(w)) this.send(w, view);
    }
  }

  /** One read of the previews of every run watched here (beside the records: a slow store never delays them). */
  private readPreviews(): void {
    if (this.readingPreviews) return;
    this.readingPreviews = true;
    void this.track(this.sendPreviews())
      .catch(() => undefined) // a failed read is retried at the next tick
      .finally(() => (this.readingPreviews = false));
  }

  /** Each stream is told of a new preview at most every previewEveryMs. */
  private async sendPreviews(): Promise<void> {
    const store = this.options.previews;
    const watching = [...this.watchers].filter((w) => w.run !== null && w.sink.preview);
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
    for (const w of this.watchers) if (w.run !== null) w.sink.heartbeat();
  }

  private async renewSlots(): Promise<void> {
    const holders = [...this.watchers].filter((w) => w.run !== null).map((w) => w.holder);
    await this.track(this.slots.renew(holders, this.slotUntil())).catch(() => undefined); // the next renewal tries again
  }
}
