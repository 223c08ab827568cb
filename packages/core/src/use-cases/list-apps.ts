import { CoreError } from '../domain/errors.js';
import type { AppVersionPage, AppVersionRepository } from '../ports/app-version-repository.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './list-runs.js';

/** `GET /apps`: the live app versions every account may run, newest first. */
export class ListApps {
  constructor(private readonly appVersions: AppVersionRepository) {}

  /** @throws CoreError INVALID_REQUEST for a bad limit or cursor */
  async execute(options: { limit?: number; cursor?: string | null }): Promise<AppVersionPage> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new CoreError('INVALID_REQUEST', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    }
    return this.appVersions.listLive({ limit, after: options.cursor ?? null });
  }
}
