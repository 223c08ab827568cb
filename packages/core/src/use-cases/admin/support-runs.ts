/** The runs of every account, for the operator's support tools: read, list, cancel. */
import type { ChangeAuthor } from '../../domain/audit.js';
import { CoreError } from '../../domain/errors.js';
import { RUN_STATUSES, type Run, type RunStatus } from '../../domain/run.js';
import type { RunPage, RunRepository, RunWithQueuePosition } from '../../ports/run-repository.js';
import type { CancelRun } from '../cancel-run.js';
import { pageSize } from './page-limit.js';

export class SupportRuns {
  constructor(
    private readonly runs: RunRepository,
    private readonly cancelRun: CancelRun,
  ) {}

  /** Runs newest first, of one account or one status when given. @throws CoreError INVALID_REQUEST */
  list(options: { limit?: number; cursor?: string | null; accountId?: string; status?: string }): Promise<RunPage> {
    if (options.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(options.status)) {
      throw new CoreError('INVALID_VALUE', `status must be one of ${RUN_STATUSES.join(', ')}`);
    }
    return this.runs.listAll({
      limit: pageSize(options.limit),
      after: options.cursor ?? null,
      ...(options.accountId !== undefined ? { accountId: options.accountId.toLowerCase() } : {}),
      ...(options.status !== undefined ? { status: options.status as RunStatus } : {}),
    });
  }

  /** @throws CoreError RUN_NOT_FOUND */
  async get(runId: string): Promise<RunWithQueuePosition> {
    const view = await this.runs.getWithQueuePosition(runId);
    if (!view) throw new CoreError('RUN_NOT_FOUND', `Run ${runId} not found`);
    return view;
  }

  /** Cancels any account's run as its owner could, recorded as `run.cancel`. @throws CoreError RUN_NOT_FOUND */
  cancel(runId: string, author: ChangeAuthor): Promise<Run> {
    return this.cancelRun.asOperator(runId, author);
  }
}
