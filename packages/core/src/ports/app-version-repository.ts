import type { AppVersion } from '../domain/app-version.js';
import type { AuditEntry } from '../domain/audit.js';

export interface AppVersionPage {
  readonly versions: AppVersion[];
  /** Pass back as `after` for the next (older) page; null on the last page. */
  readonly nextCursor: string | null;
}

export interface AppVersionRepository {
  /** Stores a new, immutable app version, and its audit entry in the same transaction. */
  create(version: AppVersion, audit?: AuditEntry): Promise<void>;
  /** The version (deleted or not), or null when it never existed. */
  get(id: string): Promise<AppVersion | null>;
  /**
   * Marks it deleted at `at` (keeps an earlier time) and writes the audit entry in the same
   * transaction; returns it, or null (and no entry) when not found. Never removes it.
   */
  markDeleted(id: string, at: Date, audit?: AuditEntry): Promise<AppVersion | null>;
  /** Every published version (not those made for a submitted graph), oldest first. */
  list(): Promise<AppVersion[]>;
  /**
   * Published versions (not those made for a submitted graph) not deleted (every one with
   * `includeDeleted`), newest first (ties by id, descending), `limit` at a time after the cursor of
   * the previous page.
   * @throws CoreError INVALID_REQUEST for a cursor this service did not issue
   */
  listLive(options: { limit: number; after?: string | null; includeDeleted?: boolean }): Promise<AppVersionPage>;
  /**
   * The version of this graph (`version.graphHash`): the one stored already, by whichever caller or
   * instance stored it first, else `version`, stored now. Concurrent calls all get the same one.
   */
  findOrCreateForGraph(version: AppVersion & { readonly graphHash: string }): Promise<AppVersion>;
}

export const APP_VERSION_REPOSITORY = Symbol.for('runload.core.AppVersionRepository');
