/**
 * App versions as the request paths read them: a version's workflow and inputs never change, and
 * a deletion (made by the CLI, maybe in another process) is seen within `AUTH_CACHE_MS`, as
 * CONTRACT 2 asks of every CLI change. Run creation then reads the version once per half second,
 * not once per run.
 * @module
 */
import type { AppVersion } from '../domain/app-version.js';
import type { AppVersionPage, AppVersionRepository } from '../ports/app-version-repository.js';
import type { Clock } from '../ports/clock.js';
import type { AuditEntry } from '../domain/audit.js';
import { AUTH_CACHE_MS } from './authenticate.js';
import { RecentCache } from './recent-cache.js';

export class RecentAppVersions implements AppVersionRepository {
  private readonly cache: RecentCache<AppVersion | null>;

  constructor(
    private readonly versions: AppVersionRepository,
    clock: Clock,
  ) {
    this.cache = new RecentCache(clock, AUTH_CACHE_MS);
  }

  create(version: AppVersion, audit?: AuditEntry): Promise<void> {
    this.cache.delete(version.id);
    return this.versions.create(version, audit);
  }

  /** A version not found is not kept: it may be published a moment later. */
  get(id: string): Promise<AppVersion | null> {
    return this.cache.get(id, () => this.versions.get(id), (v) => v !== null);
  }

  async markDeleted(id: string, at: Date, audit?: AuditEntry): Promise<AppVersion | null> {
    const result = await this.versions.markDeleted(id, at, audit);
    this.cache.delete(id);
    return result;
  }

  list(): Promise<AppVersion[]> {
    return this.versions.list();
  }

  findOrCreateForGraph(version: AppVersion & { readonly graphHash: string }): Promise<AppVersion> {
    return this.versions.findOrCreateForGraph(version);
  }

  /** Not cached: a listing is rare, and must show a new version at once. */
  listLive(options: { limit: number; after?: string | null; includeDeleted?: boolean }): Promise<AppVersionPage> {
    return this.versions.listLive(options);
  }
}
