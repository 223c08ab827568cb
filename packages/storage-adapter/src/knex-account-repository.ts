import type { Knex } from 'knex';
import type { Account, AccountPatch, AccountRepository, Tier } from '@runload/core';
import { toDate } from './columns.js';
import { guarded } from './storage-errors.js';

function toAccount(row: Record<string, unknown>): Account {
  return {
    id: String(row['id']),
    name: String(row['name']),
    tier: row['tier'] as Tier,
    status: row['status'] as Account['status'],
    createdAt: toDate(row['created_at']),
  };
}

export class KnexAccountRepository implements AccountRepository {
  constructor(private readonly db: Knex) {}

  create(account: Account): Promise<void> {
    return guarded(async () => {
      await this.db('accounts').insert({ id: account.id, name: account.name, tier: account.tier, status: account.status, created_at: account.createdAt.getTime() });
    });
  }

  get(id: string): Promise<Account | null> {
    return guarded(async () => {
      const row = await this.db('accounts').where({ id }).first();
      return row ? toAccount(row) : null;
    });
  }

  update(id: string, patch: AccountPatch): Promise<Account | null> {
    return guarded(async () => {
      const changes: Record<string, unknown> = {};
      if (patch.status) changes['status'] = patch.status;
      if (patch.tier) changes['tier'] = patch.tier;
      if (Object.keys(changes).length > 0) await this.db('accounts').where({ id }).update(changes);
      return this.get(id);
    });
  }

  list(): Promise<Account[]> {
    return guarded(async () => (await this.db('accounts').orderBy([{ column: 'created_at' }, { column: 'id' }])).map(toAccount));
  }
}
