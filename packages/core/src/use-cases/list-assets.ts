import type { AssetOrigin, MediaKind } from '../domain/asset.js';
import { CoreError } from '../domain/errors.js';
import type { AssetPage, AssetRepository } from '../ports/asset-repository.js';
import type { Clock } from '../ports/clock.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './list-runs.js';
import type { Principal } from './principal.js';

const KINDS: readonly string[] = ['image', 'video', 'audio'];
const ORIGINS: readonly string[] = ['upload', 'output'];

export interface ListAssetsQuery {
  readonly limit?: number;
  readonly cursor?: string | null;
  /** As sent; checked here. */
  readonly kind?: string | null;
  readonly origin?: string | null;
}

export class ListAssets {
  constructor(
    private readonly assets: AssetRepository,
    private readonly clock: Clock,
  ) {}

  /** The caller's unexpired assets, newest first. @throws CoreError INVALID_REQUEST for a bad limit, kind, origin or cursor */
  async execute(principal: Principal, query: ListAssetsQuery): Promise<AssetPage> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new CoreError('INVALID_REQUEST', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    }
    if (query.kind != null && !KINDS.includes(query.kind)) throw new CoreError('INVALID_REQUEST', 'kind must be image, video or audio');
    if (query.origin != null && !ORIGINS.includes(query.origin)) throw new CoreError('INVALID_REQUEST', 'origin must be upload or output');
    return this.assets.listByAccount(principal.account.id, {
      limit,
      after: query.cursor ?? null,
      now: this.clock.now(),
      ...(query.kind != null ? { kind: query.kind as MediaKind } : {}),
      ...(query.origin != null ? { origin: query.origin as AssetOrigin } : {}),
    });
  }
}
