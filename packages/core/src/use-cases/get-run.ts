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

/**
 * A run's place in the queue while it waits: null once it left the queue, 0 once a backend holds
 * it (it starts before every waiting run), else counted in the claim order (a query, so only then).
 */
export async function queuePositionOf(runs: RunRepository, run: Run): Promise<number | null> {
  if (run.status !== 'queued') return null;
  if (run.backendId !== null) return 0;
  return runs.queuePosition(run);
}

export class GetRun {
  constructor(private readonly runs: RunRepository) {}

  /** @throws CoreError RUN_NOT_FOUND */
  async execute(principal: Principal, runId: string): Promise<RunView> {
    // One read for the run and its place in the queue: a poll of a waiting run is one statement.
    const view = await this.runs.getWithQueuePosition(runId);
    if (!view || view.run.accountId !== principal.account.id) throw new CoreError('RUN_NOT_FOUND', `Run ${runId} not found`);
    return view;
  }
}
