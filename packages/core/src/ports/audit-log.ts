import type { AuditEntry } from '../domain/audit.js';

export interface AuditPage {
  readonly entries: AuditEntry[];
  /** Pass back as `after` for the next (older) page; null on the last page. */
  readonly nextCursor: string | null;
}

/**
 * The audit trail, read side. Entries are written by the repositories, in the transaction of the
 * change they record (each change method takes its entry).
 */
export interface AuditLog {
  /** Entries newest first (by time, then id). @throws CoreError INVALID_REQUEST for a cursor not issued here */
  list(options: { readonly limit: number; readonly after?: string | null }): Promise<AuditPage>;
}

export const AUDIT_LOG = Symbol.for('runload.core.AuditLog');
