import { CoreError } from '../domain/errors.js';
import type { RunPage, RunRepository } from '../ports/run-repository.js';
import type { Principal } from './principal.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export class ListRuns {
  constructor(private readonly runs: RunRepository) {}

  /** The caller's runs, newest first. @throws CoreError INVALID_REQUEST for a bad limit */
  async execute(principal: Principal, options: { limit?: number; cursor?: string | null }): Promise<RunPage> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new CoreError('INVALID_REQUEST', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    }
    return this.runs.listByAccount(principal.account.id, { limit, after: options.cursor ?? null });
  }
}
