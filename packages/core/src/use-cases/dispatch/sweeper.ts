/**
 * The sweep, on its own timer: expires runs past their queue time, takes over runs whose
 * dispatcher died, interrupts runs past their time limit, and reconciles every followed run with
 * its backend (what the events may have missed).
 * @module
 */
import { describeError, type DispatchContext } from './context.js';
import { FollowedRun, type FollowedRuns } from './followed-run.js';

/** Orphans taken over per sweep. */
const ORPHANS_PER_SWEEP = 50;

export class Sweeper {
  private cancel: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly ctx: DispatchContext,
    private readonly followed: FollowedRuns,
  ) {}

  start(): void {
    this.cancel = this.ctx.deps.timers.every(this.ctx.options.sweepMs, () => this.sweep());
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.ctx.deps.lifecycle.expireStale(this.ctx.options.maxQueueSeconds);
      await this.endStalledFailovers();
      const takenOver = await this.takeOverOrphans();
      await this.checkFollowed(takenOver);
    } catch (error) {
      this.ctx.options.log('error', 'dispatcher sweep failed', { error: describeError(error) });
    }
    this.ctx.wake();
  }

  /**
   * A run failing over that no backend took within its time limit fails BACKEND_LOST; the others
   * are looked for again (a notification may have been missed).
   */
  private async endStalledFailovers(): Promise<void> {
    const { deps, options } = this.ctx;
    const waiting = await deps.runs.listFailingOver(ORPHANS_PER_SWEEP);
    if (waiting.length === 0) return;
    this.ctx.failoverPossible();
    const now = deps.clock.nowMs();
    for (const run of waiting) {
      if (run.cancelRequested) await deps.lifecycle.canceled(run, null);
      else if (run.startedAt && now - run.startedAt.getTime() > options.maxRunSeconds * 1000) {
        await deps.lifecycle.lost(run, 'The backend lost the run after it started, and no other backend took it within the time limit');
      }
    }
  }

  private async takeOverOrphans(): Promise<Set<string>> {
    const { deps, options } = this.ctx;
    const takenOver = new Set<string>();
    for (const orphan of await deps.runs.listOrphaned(deps.clock.now(), ORPHANS_PER_SWEEP)) {
      if (this.stopped || this.followed.has(orphan.id) || !orphan.backendId) continue;
      const run = await deps.runs.acquireLease(orphan.id, options.owner, this.ctx.leaseUntil(), deps.clock.now());
      if (!run?.backendId) continue;
      options.log('info', 'taking over a run', { runId: run.id, backendId: run.backendId });
      const followed = FollowedRun.takenOver(this.ctx, this.followed, { ...run, backendId: run.backendId });
      takenOver.add(run.id);
      await followed.reconcile(run);
      if (run.cancelRequested) followed.on({ type: 'cancel-requested' });
    }
    return takenOver;
  }

  private async checkFollowed(takenOver: ReadonlySet<string>): Promise<void> {
    const { deps, options } = this.ctx;
    const now = deps.clock.nowMs();
    for (const followed of this.followed.all()) {
      const run = await deps.runs.get(followed.runId);
      if (!run) continue;
      if (run.startedAt && now - run.startedAt.getTime() > options.maxRunSeconds * 1000) followed.on({ type: 'over-time-limit' });
      // A cancel whose signal never came (a lost notification) is applied here at the latest.
      if (run.cancelRequested) followed.on({ type: 'cancel-requested' });
      // A run taken over above was reconciled a moment ago. One that cannot be settled now must not
      // keep the sweep from the runs after it.
      if (takenOver.has(followed.runId)) continue;
      await followed.reconcile(run).catch((error: unknown) =>
        options.log('warn', 'could not settle a followed run; the next sweep tries again', { runId: followed.runId, error: describeError(error) }),
      );
    }
  }
}
