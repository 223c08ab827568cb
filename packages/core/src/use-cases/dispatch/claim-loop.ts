/**
 * The claim loop: while a backend has room, claims the next queued runs from the database (never
 * from memory), several in one claim when there is room for several, and hands each to a
 * new {@link FollowedRun}. One pass at a time (a {@link Pump}); a wake during a pass makes it
 * go round once more.
 * @module
 */
import type { Run } from '../../domain/run.js';
import { Pump } from '../../system/pump.js';
import { placeRun } from '../placement.js';
import type { DispatchContext } from './context.js';
import { FollowedRun, type FollowedRuns } from './followed-run.js';
import { JobsAhead } from './jobs-ahead.js';

/** Runs claimed in one claim at most: a long claim delays the prompts of the runs it took first. */
const MAX_CLAIMED_AT_ONCE = 8;

export class ClaimLoop {
  private stopped = false;
  private readonly passes = new Pump(() => this.claimWhileRoom(), () => this.stopped);
  /** A run may be failing over (lost after it started): the next pass claims those first. */
  private failoverWaiting = true;

  constructor(
    private readonly ctx: DispatchContext,
    private readonly followed: FollowedRuns,
  ) {}

  stop(): void {
    this.stopped = true;
  }

  /** Told of a run failing over (here, on another instance, or found by a sweep): claimed before queued runs. */
  noteFailover(): void {
    this.failoverWaiting = true;
  }

  /**
   * Claims while there is room; a call during a pass makes it go round once more and resolves at
   * once (the first call's promise covers the whole flight, and reports its failure once).
   */
  pump(): Promise<void> {
    const starts = !this.passes.busy();
    const flight = this.passes.request();
    return starts ? flight : Promise.resolve();
  }

  private async claimWhileRoom(): Promise<void> {
    while (!this.stopped) {
      // The claim reserves a slot on the backend it names (before the prompt is sent, so a
      // crash in between is resolved by asking that backend), atomically for every instance.
      const offers = this.offers();
      if (offers.length === 0) break;
      // As many runs as this instance sees room for, in one claim: under load the runs
      // that queued during one claim are taken together by the next.
      const room = Math.min(MAX_CLAIMED_AT_ONCE, offers.reduce((n, b) => n + b.room, 0));
      // A run lost after it started goes before every waiting run: it had its slot already.
      const failover = this.failoverWaiting;
      this.failoverWaiting = false;
      const jobs = new JobsAhead(this.ctx, room);
      const runs = await this.claim(offers, room, failover, jobs);
      if (failover && runs.length > 0) this.failoverWaiting = true;
      // Counted on their backends at once, and sent while the next runs are claimed: a backend
      // with room for several runs gets them without waiting for each prompt's round trips.
      for (const run of runs) if (run.backendId) FollowedRun.claimed(this.ctx, this.followed, { ...run, backendId: run.backendId }, jobs.take(run.id));
      if ((runs.length < room && !failover) || this.stopped) break;
    }
  }

  private claim(offers: { id: string; capacity: number }[], max: number, failover: boolean, jobs: JobsAhead): Promise<Run[]> {
    const { deps, options } = this.ctx;
    const now = deps.clock.nowMs();
    return deps.runs.claimMany({
      owner: options.owner,
      leaseExpiresAt: this.ctx.leaseUntil(),
      now: new Date(now),
      // A run past its queue time is never started, even between two sweeps.
      queuedSince: new Date(now - options.maxQueueSeconds * 1000),
      backends: offers,
      place: (run, free) => {
        const backendId = placeRun(run, free, (backendId, r) => deps.executor.lacks(backendId, r));
        if (backendId !== null) jobs.prepare(run);
        return backendId;
      },
      // Their outputs are being stored: the backend is free for the next run meanwhile.
      finishedOnBackend: this.followed.all().filter((f) => !f.holdsBackend()).map((f) => f.runId),
      failover,
    }, max);
  }

  /**
   * The backends worth a claim. One that the runs followed here already fill has no room whatever
   * other instances do, so it is left out: with every backend full no claim is tried (a wake for
   * each new run would otherwise cost one).
   */
  private offers(): { id: string; capacity: number; room: number }[] {
    const mine = new Map<string, number>();
    for (const f of this.followed.all()) if (f.holdsBackend()) mine.set(f.backendId, (mine.get(f.backendId) ?? 0) + 1);
    return this.ctx.deps.executor
      .placement()
      .map((b) => {
        const capacity = (b.depth ?? this.ctx.options.depth) - b.foreignPrompts;
        // The most it could take: other instances' runs there are counted by the claim itself.
        return { id: b.id, capacity, room: capacity - (mine.get(b.id) ?? 0) };
      })
      .filter((b) => b.room > 0);
  }
}
