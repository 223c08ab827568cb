import type { AuditEntry } from '../domain/audit.js';
import { decodeRunCursor, encodeRunCursor } from '../domain/run-cursor.js';
import type { AuditLog, AuditPage } from '../ports/audit-log.js';

/** The audit trail in memory; the in-memory repositories append to it with each change. */
export class InMemoryAuditLog implements AuditLog {
  private readonly entries: AuditEntry[] = [];

  /** Records an entry (what a repository does in the change's transaction). */
  append(entry: AuditEntry): void {
    this.entries.push(structuredClone(entry));
  }

  async list(options: { readonly limit: number; readonly after?: string | null }): Promise<AuditPage> {
    const after = options.after ? decodeRunCursor(options.after) : null;
    const sorted = [...this.entries]
      .sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .filter((e) => !after || e.at.getTime() < after.createdAtMs || (e.at.getTime() === after.createdAtMs && e.id < after.id));
    const entries = sorted.slice(0, options.limit).map((e) => structuredClone(e));
    const last = entries[entries.length - 1];
    return { entries, nextCursor: sorted.length > options.limit && last ? encodeRunCursor({ createdAt: last.at, id: last.id }) : null };
  }
}
