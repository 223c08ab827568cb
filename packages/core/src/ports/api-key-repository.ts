import type { ApiKey } from '../domain/api-key.js';
import type { AuditEntry } from '../domain/audit.js';

export interface ApiKeyRepository {
  /** Stores a new key, and its audit entry in the same transaction. The prefix is unique. */
  create(key: ApiKey, audit?: AuditEntry): Promise<void>;
  /** The key with that public prefix (revoked or not), or null. */
  findByPrefix(prefix: string): Promise<ApiKey | null>;
  /** The key with that id, or null. */
  get(id: string): Promise<ApiKey | null>;
  /**
   * Marks the key revoked at `at` (keeps an earlier revocation time) and writes the audit entry in
   * the same transaction; null (and no entry) when not found.
   */
  revoke(id: string, at: Date, audit?: AuditEntry): Promise<ApiKey | null>;
  /** Every key of the account, revoked ones included, oldest first; empty for an unknown account. */
  listByAccount(accountId: string): Promise<ApiKey[]>;
  /** Records that the key was used at `at` (never moves `lastUsedAt` back); no-op for an unknown id. */
  touch(id: string, at: Date): Promise<void>;
}

export const API_KEY_REPOSITORY = Symbol.for('runload.core.ApiKeyRepository');
