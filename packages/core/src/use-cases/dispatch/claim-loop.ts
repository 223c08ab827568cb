/**
 * The claim loop: while a backend has room, claims the next queued run from the database (never
 * from memory) and hands it to a new {@link FollowedRun}. One pass at a time; a wake during a
 * pass makes it go round once more.
 * @module
 */
import type { Run } from '../../domain/run.js';
import { placeRun } from '../placement.js';
import type { DispatchContext } from './context.js';
import { FollowedRun, type FollowedRuns } from './followed-run.js';

export class ClaimLoop {
  private pumping = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly ctx: DispatchContext,
    private readonly followed: FollowedRuns,
  ) {}

  stop(): void {
    this.stopped = true;
  }

  async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        while (!this.stopped) {
          // The claim reserves a slot on the backend it names (before the prompt is sent, so a
          // crash in between is resolved by asking that backend), in one transaction shared by
          // every instance.
          const offers = this.offers();
          if (offers.length === 0) break;
          const run = await this.claim(offers);
          if (!run?.backendId || this.stopped) break;
          // Counted on its backend at once, and sent while the next run is claimed: a backend with
          // room for several runs gets them without waiting for each prompt's round trips in turn.
          FollowedRun.claimed(this.ctx, this.followed, { ...run, backendId: run.backendId });
        }
      } while (this.again && !this.stopped);
    } finally {
      this.pumping = false;
    }
  }

  private claim(offers: { id: string; capacity: number }[]): Promise<Run | null> {
    const { deps, options } = this.ctx;
    const now = deps.clock.nowMs();
    return deps.runs.claimNext({
      owner: options.owner,
      leaseExpiresAt: this.ctx.leaseUntil(),
      now: new Date(now),
      // A run past its queue time is never started, even between two sweeps.
      queuedSince: new Date(now - options.maxQueueSeconds * 1000),
      backends: offers,
      place: (run, free) => placeRun(run, free, (backendId, r) => deps.executor.lacks(backendId, r)),
    });
  }

  /**
   * The backends worth a claim. One that the runs followed here already fill has no room whatever
   * other instances do, so it is left out: with every backend full no transaction is opened (a
   * wake for each new run would otherwise cost one).
   */
  private offers(): { id: string; capacity: number }[] {
    const mine = new Map<string, number>();
    for (const f of this.followed.all()) mine.set(f.backendId, (mine.get(f.backendId) ?? 0) + 1);
    return this.ctx.deps.executor
      .placement()
      .map((b) => ({ id: b.id, capacity: this.ctx.options.depth - b.foreignPrompts }))
      .filter((b) => (mine.get(b.id) ?? 0) < b.capacity);
  }
}
