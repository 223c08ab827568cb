/**
 * Renews the leases of the runs followed here, on its own timer, so a slow sweep never lets them
 * lapse. Only followed runs keep their leases: one dropped after an unexpected error is freed when
 * its lease lapses, and a sweep (of any instance) settles it with its backend.
 * @module
 */
import type { DispatchContext } from './context.js';
import type { FollowedRuns } from './followed-run.js';

export class LeaseKeeper {
  private cancel: (() => void) | null = null;

  constructor(
    private readonly ctx: DispatchContext,
    private readonly followed: FollowedRuns,
  ) {}

  /** Renewed four times per lease (at most every 100 ms). */
  start(): void {
    const every = Math.max(100, Math.floor(this.ctx.options.leaseMs / 4));
    this.cancel = this.ctx.deps.timers.every(every, () => this.renew());
  }

  stop(): void {
    this.cancel?.();
  }

  private async renew(): Promise<void> {
    try {
      await this.ctx.deps.runs.renewLeases(this.ctx.options.owner, this.ctx.leaseUntil(), this.followed.runIds());
    } catch (error) {
      this.ctx.options.log('warn', 'could not renew leases; the next tick tries again', { error: String(error) });
    }
  }
}
