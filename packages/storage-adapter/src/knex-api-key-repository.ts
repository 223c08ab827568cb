import type { Knex } from 'knex';
import type { ApiKey, ApiKeyRepository } from '@runload/core';
import { toDate, toDateOrNull } from './columns.js';
import { guarded } from './storage-errors.js';

function toKey(row: Record<string, unknown>): ApiKey {
  return {
    id: String(row['id']),
    accountId: String(row['account_id']),
    prefix: String(row['prefix']),
    secretHash: String(row['secret_hash']),
    createdAt: toDate(row['created_at']),
    revokedAt: toDateOrNull(row['revoked_at']),
  };
}

export class KnexApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Knex) {}

  create(key: ApiKey): Promise<void> {
    return guarded(async () => {
      await this.db('api_keys').insert({
        id: key.id,
        account_id: key.accountId,
        prefix: key.prefix,
        secret_hash: key.secretHash,
        created_at: key.createdAt.getTime(),
        revoked_at: key.revokedAt?.getTime() ?? null,
      });
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

  revoke(id: string, at: Date): Promise<ApiKey | null> {
    return guarded(async () => {
      await this.db('api_keys')
        .where({ id })
        .where((q) => q.whereNull('revoked_at').orWhere('revoked_at', '>', at.getTime()))
        .update({ revoked_at: at.getTime() });
      return this.get(id);
    });
  }
}
