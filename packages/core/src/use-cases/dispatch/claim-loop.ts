/**
 * The claim loop: while a backend has room, claims the next queued runs from the database (never
 * from memory), several in one claim when there is room for several, and hands each to a
 * new {@link FollowedRun}. One pass at a time (a {@link Pump}); a wake during a pass makes it
 * go round once more. With `ahead`, a backend that this instance's runs fill gets one run more,
 * claimed shortly before one of them is expected to end (see {@link aheadWindow}): it waits here
 * and its prompt goes the moment that run is done there, so the backend never waits for a claim.
 * @module
 */
import type { Run } from '../../domain/run.js';
import type { BackendPlacement } from '../../ports/executor.js';
import type { SlotOffer } from '../../ports/run-repository.js';
import { Pump } from '../../system/pump.js';
import { placeRun } from '../placement.js';
import { aheadWindow, ExpectedHolds } from './ahead-timing.js';
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
  /** How long runs hold their backends, learned here: when a claim ahead is due. */
  private readonly expectedHolds = new ExpectedHolds();
  /** The wake set for the next claim ahead to come due, if any. */
  private aheadWake: { atMs: number; cancel: () => void } | null = null;

  constructor(
    private readonly ctx: DispatchContext,
    private readonly followed: FollowedRuns,
  ) {
    // Only claiming ahead makes runs wait: without it a run's end costs no look for one.
    if (ctx.options.ahead) {
      followed.whenBackendFreed((freed) => {
        if (freed.heldMs !== null) this.expectedHolds.note(freed.appVersionId, freed.heldMs);
        this.startWaiting(freed.backendId);
      });
    }
  }

  stop(): void {
    this.stopped = true;
    this.aheadWake?.cancel();
    this.aheadWake = null;
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
    // A backend drained, removed or unreachable since a run began waiting there hands it back.
    if (this.ctx.options.ahead) for (const backendId of new Set(this.followed.all().filter((f) => f.waits()).map((f) => f.backendId))) this.startWaiting(backendId);
    while (!this.stopped) {
      // The claim reserves a slot on the backend it names (before the prompt is sent, so a
      // crash in between is resolved by asking that backend), atomically for every instance.
      const offers = this.offers(this.ctx.options.ahead !== undefined && !this.failoverWaiting);
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
      for (const run of runs) {
        if (!run.backendId) continue;
        const placed = { ...run, backendId: run.backendId };
        if (offers.find((b) => b.id === run.backendId)?.waitsForRoom) {
          FollowedRun.waiting(this.ctx, this.followed, placed, jobs.take(run.id));
          // The run before it may have finished while the claim was on its way.
          this.startWaiting(run.backendId);
        } else {
          FollowedRun.claimed(this.ctx, this.followed, placed, jobs.take(run.id));
        }
      }
      if ((runs.length < room && !failover) || this.stopped) break;
    }
  }

  private claim(offers: readonly SlotOffer[], max: number, failover: boolean, jobs: JobsAhead): Promise<Run[]> {
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
   * other instances do: it is offered one slot more, for a run to wait there (`waitsForRoom`), when
   * `ahead`, none waits there yet and one of its runs is due to end within the lead; a wake is set
   * for when the next such backend comes due. With every backend full and none due, no claim is
   * tried (a wake for each new run would otherwise cost one).
   */
  private offers(ahead: boolean): (SlotOffer & { room: number })[] {
    const mine = this.mine();
    const nowMs = this.ctx.deps.clock.nowMs();
    const leadMs = this.ctx.options.ahead?.leadMs ?? 0;
    let nextDueMs = Infinity;
    const offers: (SlotOffer & { room: number })[] = [];
    for (const b of this.ctx.deps.executor.placement()) {
      const capacity = this.capacityOf(b);
      const { holding, waiting } = mine.get(b.id) ?? { holding: [], waiting: 0 };
      // The most it could take: other instances' runs there are counted by the claim itself.
      const room = capacity - holding.length - waiting;
      if (room > 0) offers.push({ id: b.id, capacity, room });
      else if (ahead && capacity > 0 && waiting === 0 && holding.length === capacity) {
        const window = aheadWindow(holding, this.expectedHolds, nowMs, leadMs);
        if (window.open) offers.push({ id: b.id, capacity: capacity + 1, room: 1, waitsForRoom: true });
        else if (window.opensAtMs !== null) nextDueMs = Math.min(nextDueMs, window.opensAtMs);
      }
    }
    if (nextDueMs !== Infinity) this.wakeAt(nextDueMs, nowMs);
    return offers;
  }

  /** Makes the claim loop go round at `atMs`, unless a wake no later than that is set already. */
  private wakeAt(atMs: number, nowMs: number): void {
    if (this.stopped || (this.aheadWake && this.aheadWake.atMs <= atMs)) return;
    this.aheadWake?.cancel();
    const cancel = this.ctx.deps.timers.after(Math.max(0, atMs - nowMs), () => {
      if (this.aheadWake?.cancel === cancel) this.aheadWake = null;
      this.ctx.wake();
    });
    this.aheadWake = { atMs, cancel };
  }

  /** Sends the runs waiting on `backendId` that fit there now, or hands them back when it takes no more work. */
  private startWaiting(backendId: string): void {
    const here = this.followed.all().filter((f) => f.backendId === backendId);
    const waiting = here.filter((f) => f.waits());
    if (waiting.length === 0) return;
    const backend = this.ctx.deps.executor.placement().find((b) => b.id === backendId);
    if (!backend) {
      for (const f of waiting) f.on({ type: 'hand-back', why: 'the backend a run waited for takes no more work; run queued again' });
      return;
    }
    let holding = here.filter((f) => f.holdsBackend()).length;
    // A run past its queue time is never started: queued again, its expiry is the sweep's. (Runs
    // failing over, whose queue time was spent long ago, are never claimed to wait.)
    const queuedSince = this.ctx.deps.clock.nowMs() - this.ctx.options.maxQueueSeconds * 1000;
    for (const f of waiting) {
      if (holding >= this.capacityOf(backend)) return;
      if (f.createdAtMs < queuedSince) {
        f.on({ type: 'hand-back', why: 'a run waited for its backend past its queue time; run queued again' });
        continue;
      }
      f.on({ type: 'backend-free' });
      holding += 1;
    }
  }

  private capacityOf(b: BackendPlacement): number {
    return (b.depth ?? this.ctx.options.depth) - b.foreignPrompts;
  }

  /** The runs followed here on each backend: those holding a place there, and how many wait for one. */
  private mine(): Map<string, { holding: FollowedRun[]; waiting: number }> {
    const mine = new Map<string, { holding: FollowedRun[]; waiting: number }>();
    for (const f of this.followed.all()) {
      const here = mine.get(f.backendId) ?? { holding: [], waiting: 0 };
      if (f.holdsBackend()) here.holding.push(f);
      else if (f.waits()) here.waiting += 1;
      mine.set(f.backendId, here);
    }
    return mine;
  }
}
