/**
 * One following of one run: the object is the identity. Events of the backend, answers of
 * reconciliations and results of its own effects all go through {@link FollowedRun.on}, which
 * applies the transition function; once settled it ignores everything, so a stale event of an
 * earlier following can never touch the run as it is dispatched now.
 * @module
 */
import { CoreError } from '../../domain/errors.js';
import { isTerminal, type Run, type RunError } from '../../domain/run.js';
import type { ExecutionJob, ExecutionState } from '../../ports/executor.js';
import { buildExecutionJob } from '../build-execution-job.js';
import { describeError, type DispatchContext } from './context.js';
import { step, SUBMITTING, WAITING, whenLost, type Effect, type FollowEvent, type FollowState, type Settlement } from './follow-state.js';

const PROGRESS_WRITE_MS = 250;
/** Sweeps that may fail to read a finished run's outputs before the backend is taken to have lost them. */
const OUTPUT_READ_ATTEMPTS = 5;

/** Dispatches a run may have in all, unless the dispatcher is told otherwise. */
const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * Whether a following takes a place on its backend: from the claim until the backend is done with
 * the run (it announced the end, or its outcome is being stored), so the next run is sent while
 * this one's outcome is still being read.
 */
const holds = (state: FollowState) => state.kind === 'submitting' || (state.kind === 'sent' && !state.endedOnBackend);

export class FollowedRun {
  private current: FollowState;
  /** The lease as this following last set it (at the claim, or when it left waiting). */
  private leaseExpiresAtMs: number;
  private unfollow: () => void = () => undefined;
  /**
   * The run's start and progress, written one after another in the order the backend told them: a
   * node's start must never be overwritten by the end before it, nor a progress refused for a start
   * not yet written.
   */
  private records: Promise<unknown> = Promise.resolve();
  /** The run as this following's own last write left it (or as claimed): what storing its outcome needs. */
  private latest: Run;
  /** Since when the run holds its backend (claimed, or taken out of waiting); null when not known. */
  private heldSince: number | null;

  private constructor(
    private readonly ctx: DispatchContext,
    private readonly registry: FollowedRuns,
    /** The run as claimed (or taken over): what never changes while it is followed, read from here. */
    private readonly claimedRow: Run,
    readonly backendId: string,
    initial: FollowState,
    /** The prompt's job, built (or being built) while the claim reserved the run; built at submit otherwise. */
    private readonly job?: Promise<ExecutionJob>,
  ) {
    this.leaseExpiresAtMs = claimedRow.leaseExpiresAt?.getTime() ?? 0;
    this.current = initial;
    this.latest = claimedRow;
    this.heldSince = holds(initial) ? ctx.deps.clock.nowMs() : null;
    registry.add(this);
  }

  /** A run this dispatcher claimed: its prompt is sent now (its job built already, or being built, when given). */
  static claimed(ctx: DispatchContext, registry: FollowedRuns, run: Run & { backendId: string }, job?: Promise<ExecutionJob>): FollowedRun {
    const followed = new FollowedRun(ctx, registry, run, run.backendId, SUBMITTING, job);
    ctx.spawn(() => followed.submit(false));
    return followed;
  }

  /**
   * A run claimed with a slot of its own on a backend this dispatcher's runs fill: its prompt
   * waits for `backend-free` (see {@link FollowedRuns.whenBackendFreed}).
   */
  static waiting(ctx: DispatchContext, registry: FollowedRuns, run: Run & { backendId: string }, job?: Promise<ExecutionJob>): FollowedRun {
    // The job is awaited at submit: a failure to build it is that submit's.
    job?.catch(() => undefined);
    return new FollowedRun(ctx, registry, run, run.backendId, WAITING, job);
  }

  /** A run whose dispatcher died, its lease now ours: its prompt is on the backend already. */
  static takenOver(ctx: DispatchContext, registry: FollowedRuns, run: Run & { backendId: string }): FollowedRun {
    const followed = new FollowedRun(ctx, registry, run, run.backendId, SUBMITTING);
    // Its prompt was sent by the instance that died: since when the backend runs it is not known.
    followed.heldSince = null;
    followed.on({ type: 'accepted' });
    return followed;
  }

  get runId(): string {
    return this.claimedRow.id;
  }

  get createdAtMs(): number {
    return this.claimedRow.createdAt.getTime();
  }

  get appVersionId(): string {
    return this.claimedRow.appVersionId;
  }

  /** Since when the run holds its backend; null while it does not, or when that is not known. */
  get heldSinceMs(): number | null {
    return this.holdsBackend() ? this.heldSince : null;
  }

  get state(): FollowState {
    return this.current;
  }

  /** Whether the run still occupies its backend (its outcome not yet being stored). */
  holdsBackend(): boolean {
    return holds(this.current);
  }

  /** Whether the run waits for room on its backend (its prompt not sent yet). */
  waits(): boolean {
    return this.current.kind === 'waiting';
  }

  /** The one place a followed run's state changes. */
  on(event: FollowEvent): void {
    const from = this.current;
    if (from.kind === 'settled') return;
    const nowMs = this.ctx.deps.clock.nowMs();
    const next = step(from, event, {
      nowMs,
      backendGraceMs: this.ctx.options.backendGraceMs,
      progressWriteMs: PROGRESS_WRITE_MS,
      outputReadAttempts: OUTPUT_READ_ATTEMPTS,
    });
    this.current = next.state;
    if (next.state !== from) this.ctx.options.onTransition?.({ runId: this.runId, from: from.kind, event: event.type, to: next.state.kind });
    // Off the books before any effect runs: a run queued again may be claimed at once, by a new following.
    if (next.state.kind === 'settled') {
      this.unfollow();
      this.registry.remove(this);
    }
    for (const effect of next.effects) this.ctx.spawn(() => this.perform(effect));
    if (!holds(from) && holds(next.state)) this.heldSince = nowMs;
    // The backend is done with the run (its outcome is being stored): room for the next one now,
    // first for a run waiting there (its prompt goes at once), then for a claim.
    if (holds(from) && !holds(next.state)) {
      // Only a run that ran its course tells how long this version's runs hold a backend.
      const ranItsCourse = next.state.kind !== 'settled' && !(from.kind === 'sent' && (from.cancelSent || from.timedOut));
      const heldMs = ranItsCourse && this.heldSince !== null ? nowMs - this.heldSince : null;
      this.registry.backendFreed({ backendId: this.backendId, appVersionId: this.appVersionId, heldMs });
      this.ctx.wake();
    }
  }

  /** Asks the backend where the run stands (a sweep does, for every run followed). */
  async reconcile(run: Run): Promise<void> {
    // Until the prompt is sent, "unknown" on the backend means nothing: never requeue a run mid-submit.
    if (this.current.kind !== 'sent') return;
    let state: ExecutionState;
    try {
      state = await this.ctx.deps.executor.inspect(this.backendId, this.runId);
    } catch (error) {
      if (!CoreError.hasCode(error, 'SERVICE_UNAVAILABLE')) throw error;
      return this.on({ type: 'unreachable' });
    }
    this.on({ type: 'inspected', state, runStatus: run.status });
  }

  /** @param waited the run was claimed to wait for room (and has waited until now) */
  private async submit(waited: boolean): Promise<void> {
    const { deps, options } = this.ctx;
    const run = this.claimedRow;
    try {
      // A run that waited is taken out of waiting first, in one guarded write: a cancel may have
      // ended it meanwhile (on any instance), and from now on it is held on its backend.
      if (waited) {
        const leaseExpiresAt = this.ctx.leaseUntil();
        if (!(await deps.runs.leaveWaiting(run.id, options.owner, leaseExpiresAt))) throw new CoreError('INVALID_TRANSITION', 'The run no longer waits for its backend');
        this.leaseExpiresAtMs = leaseExpiresAt.getTime();
      }
      const built = await (this.job ?? buildExecutionJob(run, deps.appVersions, deps.assets, deps.blobs));
      // Verifies (and renews) the claim at the last moment: a dispatcher that stalled past its lease
      // must not send a prompt another dispatcher may already have sent, nor one whose run was
      // canceled or queued again meanwhile. A run failing over is claimed `running` (it started
      // before). A lease taken moments ago cannot have passed to anyone, and a cancel asked
      // meanwhile is known here: that check costs no write.
      const stillClaimed = async () => {
        if (this.claimIsFresh() && !this.cancelPending()) return true;
        return (await deps.runs.update(run.id, { leaseExpiresAt: this.ctx.leaseUntil() }, { status: [run.status === 'running' ? 'running' : 'queued'], leaseOwner: options.owner })) !== null;
      };
      const result = await deps.executor.submit(this.backendId, { ...built, stillClaimed });
      this.on(result.accepted ? { type: 'accepted' } : { type: 'refused', error: result.error });
    } catch (error) {
      this.on({ type: 'submit-failed', error });
    }
  }

  /** At most a third of the claim's lease has passed (by this process's clock, which set it). */
  private claimIsFresh(): boolean {
    const leftMs = this.leaseExpiresAtMs - this.ctx.deps.clock.nowMs();
    return leftMs > (this.ctx.options.leaseMs * 2) / 3;
  }

  /** A cancel was noted while the prompt was being prepared. */
  private cancelPending(): boolean {
    return this.current.kind === 'submitting' && this.current.cancelPending;
  }

  private async perform(effect: Effect): Promise<void> {
    const { deps, options } = this.ctx;
    switch (effect.do) {
      case 'submit':
        // Only a waiting run's backend becoming free asks for this; a fresh claim submits at once.
        return this.submit(true);
      case 'follow':
        this.unfollow = deps.executor.follow(this.backendId, this.runId, (event) => {
          // Previews go to their store, never through the run's state.
          if (event.type === 'preview') return deps.previews?.offer(this.runId, event.preview);
          if (event.type === 'finished' || event.type === 'lost') deps.previews?.finish(this.runId);
          this.on({ type: 'backend', event });
        });
        // Settled while the follow began (a synchronous "lost"): nothing must be followed any more.
        if (this.current.kind === 'settled') this.unfollow();
        return;
      case 'send-cancel': {
        let state: ExecutionState;
        try {
          await deps.executor.cancel(this.backendId, this.runId);
          state = await deps.executor.inspect(this.backendId, this.runId);
        } catch (error) {
          return this.on({ type: 'cancel-failed', error });
        }
        this.on({ type: 'cancel-answered', state });
        return;
      }
      case 'interrupt':
        options.log('warn', 'run over its time limit; interrupting', { runId: this.runId });
        try {
          await deps.executor.cancel(this.backendId, this.runId);
        } catch (error) {
          this.on({ type: 'interrupt-failed', error });
        }
        return;
      // Both write with the run's status as their condition, so they need no read first (a cancel
      // asked meanwhile comes by the work signal, and every sweep looks for one).
      case 'record-started':
        return this.record(() => deps.lifecycle.started(this.claimedRow));
      case 'record-progress':
        return this.record(() => deps.lifecycle.progress(this.claimedRow, { value: effect.value, max: effect.max, nodeId: effect.nodeId }));
      case 'store':
        try {
          await this.store(effect.result, effect.timedOut);
          this.on({ type: 'stored' });
        } catch (error) {
          this.on({ type: 'store-failed', error });
        }
        return;
      case 'settle':
        return this.settle(effect.settlement);
      case 'report':
        options.log('warn', effect.message, { runId: this.runId, error: describeError(effect.error) });
        return;
    }
  }

  /** One of the run's records, after those before it; the record it left is the latest known. */
  private async record(write: () => Promise<Run | null>): Promise<void> {
    const done = this.records.then(write).then((run) => {
      if (run) this.latest = run;
    });
    this.records = done.catch(() => undefined);
    await done;
  }

  private async store(result: Extract<Effect, { do: 'store' }>['result'], timedOut: boolean): Promise<void> {
    const { deps, options } = this.ctx;
    if (result.state === 'succeeded') {
      // Not read again: its start and progress are as this following wrote them (awaited while
      // the outputs are fetched), and the rest of what the outcome needs never changes. A cancel
      // asked meanwhile changes only its status, which the outcome's write has as its condition.
      const [, files] = await Promise.all([
        this.records,
        Promise.all(
          result.outputs.map(async (ref) => {
            const fetched = await deps.executor.fetchOutput(this.backendId, ref, { signal: this.ctx.stopping });
            return { nodeId: ref.nodeId, filename: fetched.filename, contentType: fetched.contentType, open: () => fetched.open() };
          }),
        ),
      ]);
      await deps.lifecycle.succeeded(this.latest, files, result.timing ?? this.observedTiming(this.latest));
      return;
    }
    const run = await deps.runs.get(this.runId);
    if (!run) return;
    if (result.state === 'failed') {
      await deps.lifecycle.failed(run, result.error, result.timing);
    } else if (timedOut) {
      const error: RunError = { code: 'RUN_TIMEOUT', message: `The run took longer than ${options.maxRunSeconds} seconds`, nodeId: null, nodeType: null };
      await deps.lifecycle.failed(run, error, result.timing ?? this.observedTiming(run));
    } else {
      await deps.lifecycle.canceled(run, result.timing ?? this.observedTiming(run));
    }
  }

  private async settle(settlement: Settlement): Promise<void> {
    const { deps, options } = this.ctx;
    const run = await deps.runs.get(this.runId);
    if (!run) return;
    switch (settlement.how) {
      case 'failed':
        await deps.lifecycle.failed(run, settlement.error, null);
        return;
      case 'canceled':
        await deps.lifecycle.canceled(run, null);
        return;
      case 'requeue':
        options.log('warn', settlement.why, { runId: this.runId, backendId: this.backendId });
        await deps.lifecycle.requeue(run);
        return;
      case 'claim-lost':
        if (run.status === 'canceling' && run.leaseOwner === options.owner) {
          await deps.lifecycle.canceled(run, null);
          return;
        }
        // Canceled while it waited for its backend: nothing is left to do.
        if (isTerminal(run.status)) return;
        options.log('warn', 'claim lost before the prompt was sent; leaving the run to its new owner', { runId: this.runId });
        return;
      case 'lose':
        switch (whenLost(run, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)) {
          case 'requeue':
            await deps.lifecycle.requeue(run);
            return;
          case 'cancel':
            await deps.lifecycle.canceled(run, null);
            return;
          case 'failover':
            options.log('warn', 'backend lost a started run; dispatching it again', { runId: this.runId, backendId: this.backendId, attempts: run.attempts });
            await deps.lifecycle.failover(run);
            return;
          case 'fail':
            await deps.lifecycle.lost(run, run.attempts > 1 ? `${settlement.message} (every one of its ${run.attempts} attempts was lost)` : settlement.message);
            return;
        }
        return;
      case 'give-up': {
        const { result, reason } = settlement;
        if (result.state === 'succeeded') await deps.lifecycle.outputsUnreadable(run, result.timing ?? this.observedTiming(run), reason);
        else await deps.lifecycle.lost(run, `The backend's outcome could not be stored: ${reason}`);
        return;
      }
    }
  }

  /** When the backend gives no timestamps (older ComfyUI): from our own observation. */
  private observedTiming(run: Run) {
    const now = this.ctx.deps.clock.nowMs();
    const start = run.startedAt?.getTime() ?? now;
    return { startedAtMs: start, finishedAtMs: Math.max(start, now) };
  }
}

/** A run followed here that left its place on a backend. */
export interface BackendFreed {
  readonly backendId: string;
  readonly appVersionId: string;
  /** How long it held the backend; null when it did not run its course there (lost, canceled, over time), or not known. */
  readonly heldMs: number | null;
}

/** The runs this dispatcher follows now, one following per run. */
export class FollowedRuns {
  private readonly byRun = new Map<string, FollowedRun>();
  private freed: (freed: BackendFreed) => void = () => undefined;

  /** Called, synchronously, each time a run followed here leaves its place on a backend. */
  whenBackendFreed(listener: (freed: BackendFreed) => void): void {
    this.freed = listener;
  }

  backendFreed(freed: BackendFreed): void {
    this.freed(freed);
  }

  add(followed: FollowedRun): void {
    this.byRun.set(followed.runId, followed);
  }

  remove(followed: FollowedRun): void {
    if (this.byRun.get(followed.runId) !== followed) return;
    // No wake here: a run leaving its backend already woke the claim loop (FollowedRun.on), and
    // one whose outcome was being stored no longer counted on its backend.
    this.byRun.delete(followed.runId);
  }

  has(runId: string): boolean {
    return this.byRun.has(runId);
  }

  all(): FollowedRun[] {
    return [...this.byRun.values()];
  }

  runIds(): string[] {
    return [...this.byRun.keys()];
  }

  get size(): number {
    return this.byRun.size;
  }
}
