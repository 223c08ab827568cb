import type { Knex } from 'knex';
import { decodeRunCursor, encodeRunCursor, type AuditEntry, type AuditLog, type AuditPage } from '@runload/core';
import { toDate } from './columns.js';
import { guarded } from './storage-errors.js';

/**
 * Writes an audit entry with `db`, which is the transaction of the change it records: a
 * repository's change method calls it inside its own `transaction`, so both commit or neither.
 */
export async function insertAuditEntry(db: Knex, entry: AuditEntry): Promise<void> {
  await db('audit_log').insert({
    id: entry.id,
    at: entry.at.getTime(),
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    request_id: entry.requestId,
  });
}

function toEntry(row: Record<string, unknown>): AuditEntry {
  return {
    id: String(row['id']),
    at: toDate(row['at']),
    actor: String(row['actor']),
    action: String(row['action']),
    target: String(row['target']),
    requestId: row['request_id'] === null || row['request_id'] === undefined ? null : String(row['request_id']),
  };
}

export class KnexAuditLog implements AuditLog {
  constructor(private readonly db: Knex) {}

  list(options: { readonly limit: number; readonly after?: string | null }): Promise<AuditPage> {
    return guarded(async () => {
      const after = options.after ? decodeRunCursor(options.after) : null;
      const query = this.db('audit_log').orderBy([{ column: 'at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(options.limit + 1);
      if (after) query.where((q) => q.where('at', '<', after.createdAtMs).orWhere((q2) => q2.where('at', '=', after.createdAtMs).where('id', '<', after.id)));
      const rows = (await query).map(toEntry);
      const entries = rows.slice(0, options.limit);
      const last = entries[entries.length - 1];
      return { entries, nextCursor: rows.length > options.limit && last ? encodeRunCursor({ createdAt: last.at, id: last.id }) : null };
    });
  }
}
