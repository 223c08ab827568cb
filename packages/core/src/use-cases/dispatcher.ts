/**
 * The dispatcher: claims queued runs from the database (never from memory), hands each to a
 * backend with room, follows it to its end, and reconciles everything it is unsure of with the
 * backend. Woken by the work signal; a slow sweep covers expiry, time limits, lease renewal and
 * runs whose dispatcher died.
 * @module
 */
import { CoreError } from '../domain/errors.js';
import type { Run, RunError } from '../domain/run.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Clock } from '../ports/clock.js';
import type { ExecutionEvent, ExecutionState, Executor, TerminalExecutionState } from '../ports/executor.js';
import type { RunRepository } from '../ports/run-repository.js';
import type { WorkSignal } from '../ports/work-signal.js';
import { buildExecutionJob } from './build-execution-job.js';
import { placeRun } from './placement.js';
import type { RunLifecycle } from './run-lifecycle.js';

export interface DispatcherOptions {
  /** This dispatcher's lease owner name; stable across restarts of a single instance. */
  readonly owner: string;
  readonly leaseMs: number;
  /** Runs a backend may hold at once, across every instance (1 = only idle backends get work). */
  readonly depth: number;
  readonly maxQueueSeconds: number;
  readonly maxRunSeconds: number;
  /** How often the sweep runs (expiry, time limits, orphans, leases). */
  readonly sweepMs: number;
  /** A backend unreachable this long loses its runs (queued ones are dispatched again). */
  readonly backendGraceMs: number;
  readonly log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

export interface DispatcherDeps {
  readonly runs: RunRepository;
  readonly appVersions: AppVersionRepository;
  readonly assets: AssetRepository;
  readonly blobs: BlobStore;
  readonly executor: Executor;
  readonly lifecycle: RunLifecycle;
  readonly signal: WorkSignal;
  readonly clock: Clock;
}

interface Tracked {
  readonly backendId: string;
  stopFollowing: () => void;
  cancelSent: boolean;
  timedOut: boolean;
  lastProgressMs: number;
  unreachableSinceMs: number | null;
  /** Set once a terminal outcome is being stored, so events and reconciliation never store it twice. */
  finishing: boolean;
  /** False while this dispatcher is still sending the prompt: the backend cannot know the run yet. */
  sent: boolean;
  /** A cancel came while the prompt was on its way: it is sent to the backend once the prompt is there. */
  cancelOnceSent: boolean;
  /** Failed attempts to store the outcome (outputs unreadable, database down); each sweep tries again. */
  finishFailures: number;
}

const PROGRESS_WRITE_MS = 250;
/** Sweeps that may fail to read a finished run's outputs before the backend is taken to have lost them. */
const OUTPUT_READ_ATTEMPTS = 5;

export class Dispatcher {
  private readonly tracked = new Map<string, Tracked>();
  private readonly work = new Set<Promise<unknown>>();
  private unsubscribe: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private pumping = false;
  private pumpAgain = false;
  private stopping = false;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly options: DispatcherOptions,
  ) {}

  /** Picks up what an earlier process of this owner left, then starts listening. */
  async start(): Promise<void> {
    await this.deps.runs.releaseLeases(this.options.owner);
    this.unsubscribe = this.deps.signal.subscribe((reason) => this.onSignal(reason));
    this.timer = setInterval(() => this.background(() => this.sweep()), this.options.sweepMs);
    this.timer.unref();
    // Leases are renewed on their own timer, so a slow sweep never lets them lapse.
    this.renewTimer = setInterval(
      () => this.background(() => this.renewLeases()),
      Math.max(100, Math.floor(this.options.leaseMs / 4)),
    );
    this.renewTimer.unref();
    await this.sweep();
    this.wake();
  }

  /** Stops claiming, lets in-flight database work finish, and releases the leases. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    if (this.renewTimer) clearInterval(this.renewTimer);
    for (const t of this.tracked.values()) t.stopFollowing();
    await Promise.allSettled([...this.work]);
    await this.deps.runs.releaseLeases(this.options.owner);
    this.tracked.clear();
  }

  /** Runs this dispatcher follows now (for health and tests). */
  inFlight(): number {
    return this.tracked.size;
  }

  wake(): void {
    if (!this.stopping) this.background(() => this.pump());
  }

  private onSignal(reason: string): void {
    if (reason === 'run-cancel') this.background(() => this.applyCancels());
    this.wake();
  }

  private background(task: () => Promise<unknown>): void {
    const p = task().catch((error: unknown) => this.options.log('error', 'dispatcher task failed', { error: describe(error) }));
    this.work.add(p);
    void p.finally(() => this.work.delete(p));
  }

  /**
   * Only the runs followed here keep their leases: one this dispatcher dropped after an unexpected
   * error is freed when its lease lapses, and a sweep (of any instance) settles it with its backend.
   */
  private renewLeases(): Promise<number> {
    return this.deps.runs.renewLeases(this.options.owner, this.leaseUntil(), [...this.tracked.keys()]);
  }

  private leaseUntil(): Date {
    return new Date(this.deps.clock.nowMs() + this.options.leaseMs);
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        while (!this.stopping) {
          // The claim reserves a slot on the backend it names (before the prompt is sent, so a
          // crash in between is resolved by asking that backend), in one transaction shared by
          // every instance.
          if (this.offers().length === 0) break;
          const run = await this.claim();
          if (!run?.backendId) break;
          const backendId = run.backendId;
          // Counted on its backend at once, and sent while the next run is claimed: a backend with
          // room for several runs gets them without waiting for each prompt's round trips in turn.
          const tracked = this.track(run.id, backendId);
          this.background(() => this.dispatch(run, tracked));
        }
      } while (this.pumpAgain && !this.stopping);
    } finally {
      this.pumping = false;
    }
  }

  private claim(): Promise<Run | null> {
    const { executor } = this.deps;
    const now = this.deps.clock.nowMs();
    return this.deps.runs.claimNext({
      owner: this.options.owner,
      leaseExpiresAt: this.leaseUntil(),
      now: new Date(now),
      // A run past its queue time is never started, even between two sweeps.
      queuedSince: new Date(now - this.options.maxQueueSeconds * 1000),
      backends: this.offers(),
      place: (run, free) => placeRun(run, free, (backendId, r) => executor.lacks(backendId, r)),
    });
  }

  /**
   * The backends worth a claim. One that the runs followed here already fill has no room whatever
   * other instances do, so it is left out: with every backend full no transaction is opened (a
   * wake for each new run would otherwise cost one).
   */
  private offers(): { id: string; capacity: number }[] {
    const mine = new Map<string, number>();
    for (const t of this.tracked.values()) mine.set(t.backendId, (mine.get(t.backendId) ?? 0) + 1);
    return this.deps.executor
      .placement()
      .map((b) => ({ id: b.id, capacity: this.options.depth - b.foreignPrompts }))
      .filter((b) => (mine.get(b.id) ?? 0) < b.capacity);
  }

  private async dispatch(run: Run, tracked: Tracked): Promise<void> {
    const { backendId } = tracked;
    try {
      const built = await buildExecutionJob(run, this.deps.appVersions, this.deps.assets, this.deps.blobs);
      // Renews and verifies the claim at the last moment: a dispatcher that stalled past its lease
      // must not send a prompt another dispatcher may already have sent, nor one whose run was
      // queued again meanwhile.
      const stillClaimed = async () =>
        (await this.deps.runs.update(run.id, { leaseExpiresAt: this.leaseUntil() }, { status: ['queued'], leaseOwner: this.options.owner })) !== null;
      const result = await this.deps.executor.submit(backendId, { ...built, stillClaimed });
      if (!result.accepted) {
        this.untrack(run.id);
        await this.deps.lifecycle.failed(run, result.error, null);
        return;
      }
    } catch (error) {
      this.untrack(run.id);
      if (CoreError.hasCode(error, 'INVALID_TRANSITION')) {
        // Canceled while its media were uploaded: the prompt was never sent, so it is canceled here and now.
        const current = await this.deps.runs.get(run.id);
        if (current?.status === 'canceling' && current.leaseOwner === this.options.owner) {
          await this.deps.lifecycle.canceled(current, null);
          return;
        }
        this.options.log('warn', 'claim lost before the prompt was sent; leaving the run to its new owner', { runId: run.id });
        return;
      }
      if (CoreError.hasCode(error, 'SERVICE_UNAVAILABLE')) {
        this.options.log('warn', 'backend unreachable at submit; run queued again', { runId: run.id, backendId });
        await this.deps.lifecycle.requeue(run);
        return;
      }
      throw error;
    }
    tracked.sent = true;
    this.follow(run.id, backendId, tracked);
    if (tracked.cancelOnceSent) await this.sendCancel(run, tracked);
  }

  private track(runId: string, backendId: string): Tracked {
    const t: Tracked = { backendId, stopFollowing: () => undefined, cancelSent: false, timedOut: false, lastProgressMs: 0, unreachableSinceMs: null, finishing: false, sent: false, cancelOnceSent: false, finishFailures: 0 };
    this.tracked.set(runId, t);
    return t;
  }

  private untrack(runId: string): void {
    const t = this.tracked.get(runId);
    t?.stopFollowing();
    this.tracked.delete(runId);
    this.wake();
  }

  private follow(runId: string, backendId: string, tracked: Tracked): void {
    tracked.stopFollowing = this.deps.executor.follow(backendId, runId, (event) => this.background(() => this.onEvent(runId, event, tracked)));
  }

  private async onEvent(runId: string, event: ExecutionEvent, tracked: Tracked): Promise<void> {
    // An event of an earlier following of this run (one taken over, found lost and queued again)
    // must not touch the run as it is dispatched now.
    if (this.tracked.get(runId) !== tracked) return;
    // Node events and progress ticks that will not be written cost no database read (an instant
    // backend sends several per run, and each read used to delay the run's own outcome).
    if (event.type === 'executing') return;
    if (event.type === 'progress') {
      if (!this.progressDue(tracked, event)) return;
      tracked.lastProgressMs = this.deps.clock.nowMs();
    }
    const run = await this.deps.runs.get(runId);
    // ... and it may have been given up and dispatched anew while it was read.
    if (this.tracked.get(runId) !== tracked) return;
    if (!run) return this.untrack(runId);
    switch (event.type) {
      case 'started': {
        await this.deps.lifecycle.started(run, event.atMs);
        if (run.cancelRequested) await this.sendCancel(run, tracked);
        return;
      }
      case 'progress':
        await this.deps.lifecycle.progress(run, { value: event.value, max: event.max, nodeId: event.nodeId });
        return;
      case 'finished':
        return this.finish(run, tracked, event.result);
      case 'lost':
        return this.lose(run, 'The backend forgot the run after it started', tracked);
    }
  }

  /** Progress is written at most every PROGRESS_WRITE_MS, and always when a node completes. */
  private progressDue(tracked: Tracked, event: { value: number; max: number }): boolean {
    return this.deps.clock.nowMs() - tracked.lastProgressMs >= PROGRESS_WRITE_MS || event.value >= event.max;
  }

  private async finish(run: Run, tracked: Tracked, result: TerminalExecutionState): Promise<void> {
    if (tracked.finishing) return;
    tracked.finishing = true;
    // The backend is done with this run: it gets its next one while the outputs are stored.
    this.wake();
    try {
      if (result.state === 'succeeded') {
        const files = await Promise.all(
          result.outputs.map(async (ref) => {
            const fetched = await this.deps.executor.fetchOutput(tracked.backendId, ref);
            return { nodeId: ref.nodeId, filename: fetched.filename, contentType: fetched.contentType, open: () => fetched.open() };
          }),
        );
        await this.deps.lifecycle.succeeded(run, files, result.timing ?? this.observedTiming(run));
      } else if (result.state === 'failed') {
        await this.deps.lifecycle.failed(run, result.error, result.timing);
      } else if (tracked.timedOut) {
        const error: RunError = { code: 'RUN_TIMEOUT', message: `The run took longer than ${this.options.maxRunSeconds} seconds`, nodeId: null, nodeType: null };
        await this.deps.lifecycle.failed(run, error, result.timing ?? this.observedTiming(run));
      } else {
        await this.deps.lifecycle.canceled(run, result.timing ?? this.observedTiming(run));
      }
    } catch (error) {
      // Nothing is lost: the run stays followed and the next sweep reads its outcome again. Outputs
      // that stay unreadable while the backend answers mean the backend lost them.
      tracked.finishing = false;
      tracked.finishFailures += 1;
      if (tracked.finishFailures < OUTPUT_READ_ATTEMPTS || !CoreError.hasCode(error, 'SERVICE_UNAVAILABLE')) throw error;
      if (result.state === 'succeeded') await this.deps.lifecycle.outputsUnreadable(run, result.timing ?? this.observedTiming(run), (error as Error).message);
      else await this.deps.lifecycle.lost(run, `The backend's outcome could not be stored: ${(error as Error).message}`);
    }
    this.untrack(run.id);
  }

  /** When the backend gives no timestamps (older ComfyUI): from our own observation. */
  private observedTiming(run: Run) {
    const start = run.startedAt?.getTime() ?? this.deps.clock.nowMs();
    return { startedAtMs: start, finishedAtMs: Math.max(start, this.deps.clock.nowMs()) };
  }

  /** @param following the following that found the run lost; nothing happens once it was replaced */
  private async lose(run: Run, message: string, following?: Tracked): Promise<void> {
    const tracked = this.tracked.get(run.id);
    if (following && tracked !== following) return;
    if (tracked?.finishing) return;
    this.untrack(run.id);
    if (run.status === 'queued' && !run.cancelRequested) {
      await this.deps.lifecycle.requeue(run);
    } else if (run.cancelRequested) {
      await this.deps.lifecycle.canceled(run, null);
    } else {
      await this.deps.lifecycle.lost(run, message);
    }
  }

  private async sendCancel(run: Run, tracked: Tracked): Promise<void> {
    if (tracked.cancelSent) return;
    tracked.cancelSent = true;
    await this.deps.executor.cancel(tracked.backendId, run.id);
    // A prompt removed from the backend's queue never reports again: settle it from its state.
    const state = await this.deps.executor.inspect(tracked.backendId, run.id);
    if (state.state === 'unknown' || state.state === 'queued') {
      this.untrack(run.id);
      await this.deps.lifecycle.canceled(run, null);
    } else if (state.state !== 'running') {
      await this.finish(run, tracked, state);
    }
  }

  private async applyCancels(): Promise<void> {
    for (const [runId, tracked] of [...this.tracked]) {
      const run = await this.deps.runs.get(runId);
      if (!run?.cancelRequested || tracked.cancelSent) continue;
      // Asked now, a backend the prompt has not reached yet would say it never heard of the run.
      if (tracked.sent) await this.sendCancel(run, tracked);
      else tracked.cancelOnceSent = true;
    }
  }

  /** Expiry, time limits, runs of dead dispatchers, and a check of every followed run. */
  private async sweep(): Promise<void> {
    if (this.stopping) return;
    // Leases are renewed by their own timer; the sweep does not renew them again.
    await this.deps.lifecycle.expireStale(this.options.maxQueueSeconds);
    const takenOver = new Set<string>();
    for (const orphan of await this.deps.runs.listOrphaned(this.deps.clock.now(), 50)) {
      if (this.stopping || this.tracked.has(orphan.id) || !orphan.backendId) continue;
      const run = await this.deps.runs.acquireLease(orphan.id, this.options.owner, this.leaseUntil(), this.deps.clock.now());
      if (!run || !run.backendId) continue;
      this.options.log('info', 'taking over a run', { runId: run.id, backendId: run.backendId });
      const tracked = this.track(run.id, run.backendId);
      tracked.sent = true;
      this.follow(run.id, run.backendId, tracked);
      takenOver.add(run.id);
      await this.reconcile(run, tracked);
      if (run.cancelRequested) await this.sendCancel(run, tracked).catch(() => undefined);
    }
    const now = this.deps.clock.nowMs();
    for (const [runId, tracked] of [...this.tracked]) {
      const run = await this.deps.runs.get(runId);
      if (!run) continue;
      if (run.startedAt && !tracked.timedOut && now - run.startedAt.getTime() > this.options.maxRunSeconds * 1000) {
        tracked.timedOut = true;
        this.options.log('warn', 'run over its time limit; interrupting', { runId });
        await this.deps.executor.cancel(tracked.backendId, runId).catch(() => undefined);
      }
      // A run taken over above was reconciled a moment ago. One that cannot be settled now (its
      // outputs unreadable, say) must not keep the sweep from the runs after it.
      if (!takenOver.has(runId)) {
        await this.reconcile(run, tracked).catch((error: unknown) =>
          this.options.log('warn', 'could not settle a followed run; the next sweep tries again', { runId, error: describe(error) }),
        );
      }
    }
    this.wake();
  }

  /** Asks the backend where a followed run stands and settles what it knows. */
  private async reconcile(run: Run, tracked: Tracked): Promise<void> {
    // Until the prompt is sent, "unknown" on the backend means nothing: never requeue a run mid-submit.
    if (!tracked.sent) return;
    let state: ExecutionState;
    try {
      state = await this.deps.executor.inspect(tracked.backendId, run.id);
      tracked.unreachableSinceMs = null;
    } catch (error) {
      if (!CoreError.hasCode(error, 'SERVICE_UNAVAILABLE')) throw error;
      const now = this.deps.clock.nowMs();
      tracked.unreachableSinceMs ??= now;
      if (now - tracked.unreachableSinceMs >= this.options.backendGraceMs) {
        await this.lose(run, 'The backend became unreachable while it held the run', tracked);
      }
      return;
    }
    if (state.state === 'unknown') return this.lose(run, 'The backend forgot the run after it started', tracked);
    if (state.state === 'running' && run.status === 'queued') await this.deps.lifecycle.started(run, this.deps.clock.nowMs());
    if (state.state === 'succeeded' || state.state === 'failed' || state.state === 'interrupted') {
      await this.finish(run, tracked, state);
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
