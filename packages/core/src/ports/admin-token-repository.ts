import type { AdminToken } from '../domain/admin-token.js';
import type { AuditEntry } from '../domain/audit.js';

export interface AdminTokenRepository {
  /** Stores a new token and its audit entry, both or neither. The prefix is unique. */
  create(token: AdminToken, audit: AuditEntry): Promise<void>;
  /** The token with that public prefix (revoked or not), or null. */
  findByPrefix(prefix: string): Promise<AdminToken | null>;
  /** The token with that id, or null. */
  get(id: string): Promise<AdminToken | null>;
  /** Every token, revoked ones included, oldest first. */
  list(): Promise<AdminToken[]>;
  /**
   * Marks the token revoked at `at` (an earlier revocation is kept) and writes the audit entry,
   * both or neither; null (and no entry) when no token has that id.
   */
  revoke(id: string, at: Date, audit: AuditEntry): Promise<AdminToken | null>;
  /** Records that the token was used at `at` (never moves `lastUsedAt` back); no-op for an unknown id. */
  touch(id: string, at: Date): Promise<void>;
}

export const ADMIN_TOKEN_REPOSITORY = Symbol.for('runload.core.AdminTokenRepository');
