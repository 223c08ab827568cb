import type { Knex } from 'knex';
import { decodeRunCursor, encodeRunCursor, type Account, type AccountPage, type AccountPatch, type AccountRepository, type AccountStatus, type AuditEntry, type Tier } from '@runload/core';
import { toDate } from './columns.js';
import { insertAuditEntry } from './knex-audit-log.js';
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

  create(account: Account, audit: readonly AuditEntry[] = []): Promise<void> {
    return guarded(() =>
      this.db.transaction(async (trx) => {
        await trx('accounts').insert({ id: account.id, name: account.name, tier: account.tier, status: account.status, created_at: account.createdAt.getTime() });
        for (const entry of audit) await insertAuditEntry(trx, entry);
      }),
    );
  }

  get(id: string): Promise<Account | null> {
    return guarded(async () => {
      const row = await this.db('accounts').where({ id }).first();
      return row ? toAccount(row) : null;
    });
  }

  update(id: string, patch: AccountPatch, audit: readonly AuditEntry[] = []): Promise<Account | null> {
    return guarded(() =>
      this.db.transaction(async (trx) => {
        const changes: Record<string, unknown> = {};
        if (patch.name !== undefined) changes['name'] = patch.name;
        if (patch.status) changes['status'] = patch.status;
        if (patch.tier) changes['tier'] = patch.tier;
        const found = Object.keys(changes).length > 0 ? (await trx('accounts').where({ id }).update(changes)) > 0 : (await trx('accounts').where({ id }).first()) !== undefined;
        if (!found) return null;
        for (const entry of audit) await insertAuditEntry(trx, entry);
        return toAccount(await trx('accounts').where({ id }).first());
      }),
    );
  }

  list(): Promise<Account[]> {
    return guarded(async () => (await this.db('accounts').orderBy([{ column: 'created_at' }, { column: 'id' }])).map(toAccount));
  }

  listPage(options: { limit: number; after?: string | null; tier?: Tier; status?: AccountStatus }): Promise<AccountPage> {
    return guarded(async () => {
      const after = options.after ? decodeRunCursor(options.after) : null;
      const query = this.db('accounts');
      if (options.tier !== undefined) query.where({ tier: options.tier });
      if (options.status !== undefined) query.where({ status: options.status });
      if (after) query.where('created_at', '<=', after.createdAtMs).where((q) => q.where('created_at', '<', after.createdAtMs).orWhere('id', '<', after.id));
      const rows = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(options.limit + 1);
      const accounts = rows.slice(0, options.limit).map(toAccount);
      const last = accounts[accounts.length - 1];
      return { accounts, nextCursor: rows.length > options.limit && last ? encodeRunCursor(last) : null };
    });
  }
}
