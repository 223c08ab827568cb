import type { ApiKey } from '../domain/api-key.js';

export interface ApiKeyRepository {
  /** Stores a new key. The prefix is unique. */
  create(key: ApiKey): Promise<void>;
  /** The key with that public prefix (revoked or not), or null. */
  findByPrefix(prefix: string): Promise<ApiKey | null>;
  /** The key with that id, or null. */
  get(id: string): Promise<ApiKey | null>;
  /** Marks the key revoked at `at` (keeps an earlier revocation time); null when not found. */
  revoke(id: string, at: Date): Promise<ApiKey | null>;
  /** Every key of the account, revoked ones included, oldest first; empty for an unknown account. */
  listByAccount(accountId: string): Promise<ApiKey[]>;
}

export const API_KEY_REPOSITORY = Symbol.for('runload.core.ApiKeyRepository');
