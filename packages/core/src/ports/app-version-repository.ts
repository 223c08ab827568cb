import type { AppVersion } from '../domain/app-version.js';

export interface AppVersionRepository {
  /** Stores a new, immutable app version. */
  create(version: AppVersion): Promise<void>;
  /** The version (deleted or not), or null when it never existed. */
  get(id: string): Promise<AppVersion | null>;
  /** Marks it deleted at `at` (keeps an earlier time); returns it, or null when not found. Never removes it. */
  markDeleted(id: string, at: Date): Promise<AppVersion | null>;
  /** Every version, oldest first. */
  list(): Promise<AppVersion[]>;
}

export const APP_VERSION_REPOSITORY = Symbol.for('runload.core.AppVersionRepository');
