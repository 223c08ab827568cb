/**
 * The dispatcher: claims queued runs from the database (never from memory), hands each to a
 * backend with room, follows it to its end, and reconciles everything it is unsure of with the
 * backend. Four parts (in `./dispatch/`): the claim loop, woken by the work signal; one
 * {@link FollowedRun} per run followed, a state machine; the sweeper (expiry, time limits, runs
 * whose dispatcher died, reconciliation); the lease keeper. Time comes through the Clock and
 * Timers ports.
 * @module
 */
import { ClaimLoop } from './dispatch/claim-loop.js';
import { describeError, type DispatchContext, type DispatcherDeps, type DispatcherOptions } from './dispatch/context.js';
import { FollowedRuns } from './dispatch/followed-run.js';
import { LeaseKeeper } from './dispatch/lease-keeper.js';
import { Sweeper } from './dispatch/sweeper.js';
import { WORK_REASONS } from '../ports/work-signal.js';
import { RecentAppVersions } from './recent-app-versions.js';

/** The reasons a run's outcome was stored. */
const FINISHED: ReadonlySet<string> = new Set([WORK_REASONS.runFinished, WORK_REASONS.runWithWebhookFinished]);

export type { DispatcherDeps, DispatcherOptions, Transition } from './dispatch/context.js';
export type { FollowEvent, FollowState, LostOutcome, StepEnv } from './dispatch/follow-state.js';
// The pure transition functions, for table tests of the dispatcher's states.
export { step as stepFollowState, whenLost } from './dispatch/follow-state.js';

export class Dispatcher {
  private readonly work = new Set<Promise<unknown>>();
  private readonly followed: FollowedRuns;
  private readonly claims: ClaimLoop;
  private readonly sweeper: Sweeper;
  private readonly leases: LeaseKeeper;
  private unsubscribe: (() => void) | null = null;
  private stopping = false;
  /** Aborted by `stop`: downloads in flight give up rather than hold the stop. */
  private readonly stopSignal = new AbortController();

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly options: DispatcherOptions,
  ) {
    const ctx: DispatchContext = {
      // A version never changes: the one read for the last run serves the next (one read less per run).
      deps: { ...deps, appVersions: new RecentAppVersions(deps.appVersions, deps.clock) },
      options,
      spawn: (task) => this.spawn(task),
      wake: () => this.wake(),
      failoverPossible: () => this.claims.noteFailover(),
      leaseUntil: () => new Date(deps.clock.nowMs() + options.leaseMs),
      stopping: this.stopSignal.signal,
    };
    this.followed = new FollowedRuns();
    this.claims = new ClaimLoop(ctx, this.followed);
    this.sweeper = new Sweeper(ctx, this.followed);
    this.leases = new LeaseKeeper(ctx, this.followed);
  }

  /** Picks up what an earlier process of this owner left, then starts listening. */
  async start(): Promise<void> {
    await this.deps.runs.releaseLeases(this.options.owner);
    this.unsubscribe = this.deps.signal.subscribe((reason, from) => this.onSignal(reason, from));
    this.sweeper.start();
    this.leases.start();
    await this.sweeper.sweep();
    this.wake();
  }

  /**
   * Stops claiming, lets in-flight work finish, and releases the leases. An output's download in
   * flight is aborted (it may take minutes): nothing of it is kept, and the run's outcome is
   * stored by whoever owns the run next (this owner restarted, or another instance).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopSignal.abort(new Error('the dispatcher is stopping'));
    this.unsubscribe?.();
    this.sweeper.stop();
    this.leases.stop();
    this.claims.stop();
    for (const f of this.followed.all()) f.on({ type: 'stop' });
    await this.idle();
    await this.deps.runs.releaseLeases(this.options.owner);
  }

  /** Runs this dispatcher follows now (for health and tests). */
  inFlight(): number {
    return this.followed.size;
  }

  /** Resolves once no work started by this dispatcher is pending (what it started meanwhile included). */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  wake(): void {
    if (!this.stopping) this.spawn(() => this.claims.pump());
  }

  private onSignal(reason: string, from?: string): void {
    // A run of this dispatcher's own: its end on the backend woke the claim loop already, and its
    // outcome stored since frees nothing more here (a claim would read the queue for nothing).
    if (from === this.options.owner && FINISHED.has(reason)) return;
    if (reason === WORK_REASONS.cancelAsked) this.spawn(() => this.applyCancels());
    if (reason === WORK_REASONS.runFailedOver) this.claims.noteFailover();
    this.wake();
  }

  /** A cancel was asked for somewhere: each followed run whose run asks for it is told. */
  private async applyCancels(): Promise<void> {
    for (const f of this.followed.all()) {
      const state = f.state;
      if (state.kind === 'settled' || state.kind === 'finishing' || (state.kind === 'sent' && state.cancelSent) || (state.kind === 'submitting' && state.cancelPending)) continue;
      const run = await this.deps.runs.get(f.runId);
      if (run?.cancelRequested) f.on({ type: 'cancel-requested' });
    }
  }

  private spawn(task: () => Promise<unknown>): void {
    const p = task().catch((error: unknown) => this.options.log('error', 'dispatcher task failed', { error: describeError(error) }));
    this.work.add(p);
    void p.finally(() => this.work.delete(p));
  }
}
