/** Usage for invoices and support, read from the accounts, the GPU charges and the runs. */
import type { Knex } from 'knex';
import { decodeRunCursor, encodeRunCursor, type Account, type AccountUsage, type UsagePage, type UsageRepository } from '@runload/core';
import { toDate } from './columns.js';
import { guarded } from './storage-errors.js';

const ENDED = ['succeeded', 'failed', 'canceled', 'expired'] as const;

export class KnexUsageRepository implements UsageRepository {
  constructor(private readonly db: Knex) {}

  byAccount(from: Date, to: Date, options: { limit: number; after?: string | null }): Promise<UsagePage> {
    return guarded(async () => {
      const after = options.after ? decodeRunCursor(options.after) : null;
      const query = this.db('accounts');
      if (after) query.where('created_at', '>=', after.createdAtMs).where((q) => q.where('created_at', '>', after.createdAtMs).orWhere('id', '>', after.id));
      const rows = await query.orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(options.limit + 1);
      const accounts: Account[] = rows.slice(0, options.limit).map((row: Record<string, unknown>) => ({
        id: String(row['id']),
        name: String(row['name']),
        tier: String(row['tier']),
        status: row['status'] as Account['status'],
        createdAt: toDate(row['created_at']),
      }));
      const ids = accounts.map((a) => a.id);
      const [charges, ended] = ids.length === 0 ? [[], []] : await Promise.all([
        this.db('gpu_charges')
          .select('account_id')
          .sum({ seconds: 'seconds' })
          .whereIn('account_id', ids)
          .where('charged_at', '>=', from.getTime())
          .where('charged_at', '<', to.getTime())
          .groupBy('account_id'),
        this.db('runs')
          .select('account_id', 'status')
          .count({ n: '*' })
          .whereIn('account_id', ids)
          .whereIn('status', [...ENDED])
          .where('finished_at', '>=', from.getTime())
          .where('finished_at', '<', to.getTime())
          .groupBy('account_id', 'status'),
      ]);
      const seconds = new Map((charges as { account_id: string; seconds: unknown }[]).map((c) => [c.account_id, Number(c.seconds)]));
      const usage: AccountUsage[] = accounts.map((account) => {
        const count = (status: string) => Number((ended as { account_id: string; status: string; n: unknown }[]).find((r) => r.account_id === account.id && r.status === status)?.n ?? 0);
        return {
          account,
          gpuSeconds: seconds.get(account.id) ?? 0,
          runs: { succeeded: count('succeeded'), failed: count('failed'), canceled: count('canceled'), expired: count('expired') },
        };
      });
      const last = accounts[accounts.length - 1];
      return { accounts: usage, nextCursor: rows.length > options.limit && last ? encodeRunCursor(last) : null };
    });
  }

  runsInFlight(accountId: string): Promise<{ queued: number; running: number }> {
    return guarded(async () => {
      const rows = (await this.db('runs')
        .select('status')
        .count({ n: '*' })
        .where({ account_id: accountId })
        .whereIn('status', ['queued', 'running', 'canceling'])
        .groupBy('status')) as { status: string; n: unknown }[];
      const n = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
      return { queued: n('queued'), running: n('running') + n('canceling') };
    });
  }
}
