/**
 * Cancel (CONTRACT 3, 4): a queued run becomes `canceled` at once; a running one becomes
 * `canceling` and the dispatcher interrupts it on its backend; a finished run is returned unchanged.
 * @module
 */
import type { Run } from '../domain/run.js';
import type { Clock } from '../ports/clock.js';
import type { RunRepository } from '../ports/run-repository.js';
import { WORK_REASONS, type WorkSignal } from '../ports/work-signal.js';
import { requireOwnRun } from './get-run.js';
import type { Principal } from './principal.js';

export class CancelRun {
  constructor(
    private readonly runs: RunRepository,
    private readonly signal: WorkSignal,
    private readonly clock: Clock,
  ) {}

  /** @throws CoreError RUN_NOT_FOUND */
  async execute(principal: Principal, runId: string): Promise<Run> {
    // Retry on a lost compare-and-set: the run moved under us (e.g. it just started).
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const run = await requireOwnRun(this.runs, principal, runId);
      const changed = await this.transition(run);
      if (changed === 'unchanged') return run;
      if (changed) {
        this.signal.notify(WORK_REASONS.cancelAsked);
        return changed;
      }
    }
    return requireOwnRun(this.runs, principal, runId);
  }

  private async transition(run: Run): Promise<Run | null | 'unchanged'> {
    if (run.status === 'queued' && run.backendId === null) {
      return this.runs.update(
        run.id,
        { status: 'canceled', finishedAt: this.clock.now(), cancelRequested: true, leaseOwner: null, leaseExpiresAt: null },
        { status: ['queued'] },
      );
    }
    if (run.status === 'running' && run.backendId === null) {
      // Failing over, on no backend: nothing runs anywhere, so it is canceled at once (a cancel wins over a failover).
      return this.runs.update(
        run.id,
        { status: 'canceled', finishedAt: this.clock.now(), cancelRequested: true, leaseOwner: null, leaseExpiresAt: null },
        { status: ['running'], unplaced: true },
      );
    }
    if (run.status === 'queued' || run.status === 'running') {
      // Dispatched: the backend holds it; the dispatcher removes or interrupts it there.
      return this.runs.update(run.id, { status: 'canceling', cancelRequested: true }, { status: [run.status] });
    }
    return 'unchanged';
  }
}
