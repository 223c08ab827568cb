import type { Knex } from 'knex';
import type { ApiKey, ApiKeyRepository, AuditEntry } from '@runload/core';
import { insertAuditEntry } from './knex-audit-log.js';
import { toDate, toDateOrNull } from './columns.js';
import { guarded } from './storage-errors.js';

function toKey(row: Record<string, unknown>): ApiKey {
  return {
    id: String(row['id']),
    accountId: String(row['account_id']),
    prefix: String(row['prefix']),
    secretHash: String(row['secret_hash']),
    name: row['name'] === null || row['name'] === undefined ? null : String(row['name']),
    createdAt: toDate(row['created_at']),
    lastUsedAt: toDateOrNull(row['last_used_at']),
    revokedAt: toDateOrNull(row['revoked_at']),
  };
}

export class KnexApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Knex) {}

  create(key: ApiKey, audit?: AuditEntry): Promise<void> {
    return guarded(() =>
      this.db.transaction(async (trx) => {
        await trx('api_keys').insert({
          id: key.id,
          account_id: key.accountId,
          prefix: key.prefix,
          secret_hash: key.secretHash,
          name: key.name,
          created_at: key.createdAt.getTime(),
          last_used_at: key.lastUsedAt?.getTime() ?? null,
          revoked_at: key.revokedAt?.getTime() ?? null,
        });
        if (audit) await insertAuditEntry(trx, audit);
      }),
    );
  }

  touch(id: string, at: Date): Promise<void> {
    return guarded(async () => {
      await this.db('api_keys')
        .where({ id })
        .where((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', at.getTime()))
        .update({ last_used_at: at.getTime() });
    });
  }

  findByPrefix(prefix: string): Promise<ApiKey | null> {
    return guarded(async () => {
      const row = await this.db('api_keys').where({ prefix }).first();
      return row ? toKey(row) : null;
    });
  }

  get(id: string): Promise<ApiKey | null> {
    return guarded(async () => {
      const row = await this.db('api_keys').where({ id }).first();
      return row ? toKey(row) : null;
    });
  }

  listByAccount(accountId: string): Promise<ApiKey[]> {
    return guarded(async () => {
      const rows = await this.db('api_keys').where({ account_id: accountId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
      return rows.map(toKey);
    });
  }

  revoke(id: string, at: Date, audit?: AuditEntry): Promise<ApiKey | null> {
    return guarded(() =>
      this.db.transaction(async (trx) => {
        const row = await trx('api_keys').where({ id }).first();
        if (!row) return null;
        await trx('api_keys')
          .where({ id })
          .where((q) => q.whereNull('revoked_at').orWhere('revoked_at', '>', at.getTime()))
          .update({ revoked_at: at.getTime() });
        if (audit) await insertAuditEntry(trx, audit);
        return toKey(await trx('api_keys').where({ id }).first());
      }),
    );
  }
}
