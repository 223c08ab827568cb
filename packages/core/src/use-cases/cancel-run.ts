/**
 * Cancel: a queued run on no backend yet, or waiting for room on one (its prompt not sent), becomes
 * `canceled` at once; one a backend holds (queued there or running) becomes `canceling`, and the
 * dispatcher removes or interrupts it there; a finished run is returned unchanged. Its owner cancels through the API; the operator may cancel
 * any run, and that is audited.
 * @module
 */
import { auditEntry, type AuditEntry, type ChangeAuthor } from '../domain/audit.js';
import { CoreError } from '../domain/errors.js';
import type { Run } from '../domain/run.js';
import { runChangeOf } from '../domain/run-change.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { RunRepository } from '../ports/run-repository.js';
import { WORK_REASONS, type WorkSignal } from '../ports/work-signal.js';
import { requireOwnRun } from './get-run.js';
import type { Principal } from './principal.js';

export class CancelRun {
  constructor(
    private readonly runs: RunRepository,
    private readonly signal: WorkSignal,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** @throws CoreError RUN_NOT_FOUND */
  execute(principal: Principal, runId: string): Promise<Run> {
    return this.cancel(() => requireOwnRun(this.runs, principal, runId), null);
  }

  /** Any account's run, with an audit entry `run.cancel` when it changed. @throws CoreError RUN_NOT_FOUND */
  asOperator(runId: string, author: ChangeAuthor): Promise<Run> {
    const load = async () => {
      const run = await this.runs.get(runId);
      if (!run) throw new CoreError('RUN_NOT_FOUND', `Run ${runId} not found`);
      return run;
    };
    return this.cancel(load, author);
  }

  private async cancel(load: () => Promise<Run>, author: ChangeAuthor | null): Promise<Run> {
    // Retry on a lost compare-and-set: the run moved under us (e.g. it just started).
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const run = await load();
      const audit = author ? auditEntry(author, 'run.cancel', run.id, this.clock.now(), this.ids.uuid()) : undefined;
      const changed = await this.transition(run, audit);
      if (changed === 'unchanged') return run;
      if (changed) {
        this.signal.announce(runChangeOf(changed));
        this.signal.notify(WORK_REASONS.cancelAsked);
        return changed;
      }
    }
    return load();
  }

  private async transition(run: Run, audit: AuditEntry | undefined): Promise<Run | null | 'unchanged'> {
    if (run.status === 'queued' && run.backendId === null) {
      // Still on no backend as it is written: one claimed since it was read is canceling (the backend holds it).
      return this.runs.update(
        run.id,
        { status: 'canceled', finishedAt: this.clock.now(), cancelRequested: true, leaseOwner: null, leaseExpiresAt: null },
        { status: ['queued'], unplaced: true },
        audit,
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
    if (run.status === 'queued') {
      // Waiting at a backend, its prompt not sent (its dispatcher sends nothing it cannot first take
      // out of waiting): nothing runs anywhere, so it is canceled at once.
      const canceled = await this.runs.update(
        run.id,
        { status: 'canceled', finishedAt: this.clock.now(), cancelRequested: true, leaseOwner: null, leaseExpiresAt: null },
        { status: ['queued'], waitingForRoom: true },
        audit,
      );
      if (canceled) return canceled;
    }
    if (run.status === 'queued' || run.status === 'running') {
      // Dispatched: the backend holds it; the dispatcher removes or interrupts it there.
      return this.runs.update(run.id, { status: 'canceling', cancelRequested: true }, { status: [run.status] }, audit);
    }
    return 'unchanged';
  }
}
