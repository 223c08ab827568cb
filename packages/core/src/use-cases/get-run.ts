import { CoreError } from '../domain/errors.js';
import type { Run } from '../domain/run.js';
import type { RunRepository } from '../ports/run-repository.js';
import type { Principal } from './principal.js';

export interface RunView {
  readonly run: Run;
  /** Place in the queue (0 = next) while queued; null otherwise. */
  readonly queuePosition: number | null;
}

/** Loads a run of the caller's; another account's run is indistinguishable from a missing one. */
export async function requireOwnRun(runs: RunRepository, principal: Principal, runId: string): Promise<Run> {
  const run = await runs.get(runId);
  if (!run || run.accountId !== principal.account.id) throw new CoreError('RUN_NOT_FOUND', `Run ${runId} not found`);
  return run;
}

export class GetRun {
  constructor(private readonly runs: RunRepository) {}

  /** @throws CoreError RUN_NOT_FOUND */
  async execute(principal: Principal, runId: string): Promise<RunView> {
    const run = await requireOwnRun(this.runs, principal, runId);
    const queuePosition = run.status === 'queued' ? await this.runs.queuePosition(run) : null;
    return { run, queuePosition };
  }
}
