import type { Knex } from 'knex';
import type { AdminScope, AdminToken, AdminTokenRepository, AuditEntry } from '@runload/core';
import { json, toDate, toDateOrNull } from './columns.js';
import { insertAuditEntry } from './knex-audit-log.js';
import { guarded } from './storage-errors.js';

function toToken(row: Record<string, unknown>): AdminToken {
  return {
    id: String(row['id']),
    name: String(row['name']),
    scopes: json<AdminScope[]>(row['scopes']),
    prefix: String(row['prefix']),
    secretHash: String(row['secret_hash']),
    createdAt: toDate(row['created_at']),
    lastUsedAt: toDateOrNull(row['last_used_at']),
    revokedAt: toDateOrNull(row['revoked_at']),
  };
}

export class KnexAdminTokenRepository implements AdminTokenRepository {
  constructor(private readonly db: Knex) {}

  create(token: AdminToken, audit: AuditEntry): Promise<void> {
    return guarded(() =>
      this.db.transaction(async (trx) => {
        await trx('admin_tokens').insert({
          id: token.id,
          name: token.name,
          scopes: JSON.stringify(token.scopes),
          prefix: token.prefix,
          secret_hash: token.secretHash,
          created_at: token.createdAt.getTime(),
          last_used_at: token.lastUsedAt?.getTime() ?? null,
          revoked_at: token.revokedAt?.getTime() ?? null,
        });
        await insertAuditEntry(trx, audit);
      }),
    );
  }

  findByPrefix(prefix: string): Promise<AdminToken | null> {
    return guarded(async () => {
      const row = await this.db('admin_tokens').where({ prefix }).first();
      return row ? toToken(row) : null;
    });
  }

  get(id: string): Promise<AdminToken | null> {
    return guarded(async () => {
      const row = await this.db('admin_tokens').where({ id }).first();
      return row ? toToken(row) : null;
    });
  }

  list(): Promise<AdminToken[]> {
    return guarded(async () => (await this.db('admin_tokens').orderBy([{ column: 'created_at' }, { column: 'id' }])).map(toToken));
  }

  revoke(id: string, at: Date, audit: AuditEntry): Promise<AdminToken | null> {
    return guarded(() =>
      this.db.transaction(async (trx) => {
        const row = await trx('admin_tokens').where({ id }).first();
        if (!row) return null;
        await trx('admin_tokens')
          .where({ id })
          .where((q) => q.whereNull('revoked_at').orWhere('revoked_at', '>', at.getTime()))
          .update({ revoked_at: at.getTime() });
        await insertAuditEntry(trx, audit);
        return toToken(await trx('admin_tokens').where({ id }).first());
      }),
    );
  }

  touch(id: string, at: Date): Promise<void> {
    return guarded(async () => {
      await this.db('admin_tokens')
        .where({ id })
        .where((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', at.getTime()))
        .update({ last_used_at: at.getTime() });
    });
  }
}
