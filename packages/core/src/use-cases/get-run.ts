import { CoreError } from '../domain/errors.js';
import { isWaiting, placeInQueue, type Run } from '../domain/run.js';
import type { RunRepository, RunWithQueuePosition } from '../ports/run-repository.js';
import type { Principal } from './principal.js';

/** A run as its owner sees it: the run, and its place in the queue (0 = next) while queued, else null. */
export type RunView = RunWithQueuePosition;

/** Whether `run` exists and is the caller's: another account's run is indistinguishable from a missing one. */
function isOwn(run: Run | null, principal: Principal): run is Run {
  return run !== null && run.accountId === principal.account.id;
}

const runNotFound = (runId: string) => new CoreError('RUN_NOT_FOUND', `Run ${runId} not found`);

/** Loads a run of the caller's. */
export async function requireOwnRun(runs: RunRepository, principal: Principal, runId: string): Promise<Run> {
  const run = await runs.get(runId);
  if (!isOwn(run, principal)) throw runNotFound(runId);
  return run;
}

/** A run's place in the queue (see {@link placeInQueue}), counted in the claim order only while it waits. */
export async function queuePositionOf(runs: RunRepository, run: Run): Promise<number | null> {
  return placeInQueue(run, isWaiting(run) ? await runs.queuePosition(run) : undefined);
}

export class GetRun {
  constructor(private readonly runs: RunRepository) {}

  /** @throws CoreError RUN_NOT_FOUND */
  async execute(principal: Principal, runId: string): Promise<RunView> {
    // One read for the run and its place in the queue: a poll of a waiting run is one statement.
    const view = await this.runs.getWithQueuePosition(runId);
    if (!view || !isOwn(view.run, principal)) throw runNotFound(runId);
    return view;
  }
}
