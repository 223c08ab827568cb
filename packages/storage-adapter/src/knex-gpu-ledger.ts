import type { Knex } from 'knex';
import type { GpuCharge, GpuLedger } from '@runload/core';
import { placeholders, rawRows } from './columns.js';
import { calendarMonthOf } from './migration-gpu-usage-monthly.js';
import { guarded } from './storage-errors.js';
import { TickBatch } from './tick-batch.js';

interface UsedQuery {
  readonly accountId: string;
  readonly from: number;
  readonly to: number;
}

/** The GPU-seconds ledger: one row per charged run, so charging twice changes nothing. */
export class KnexGpuLedger implements GpuLedger {
  // Every run creation asks; the asks of one turn of the event loop share a statement.
  private readonly used = new TickBatch<UsedQuery, number>((queries) => this.sumMany(queries), { maxItems: 100 });

  constructor(private readonly db: Knex) {}

  charge(c: GpuCharge): Promise<void> {
    return guarded(async () => {
      await this.db('gpu_charges')
        .insert({ run_id: c.runId, account_id: c.accountId, seconds: c.seconds, charged_at: c.chargedAt.getTime() })
        .onConflict('run_id')
        .ignore();
    });
  }

  usedSeconds(accountId: string, from: Date, to: Date): Promise<number> {
    return guarded(() => this.used.add({ accountId, from: from.getTime(), to: to.getTime() }));
  }

  /** One statement per period asked about (nearly always one: the current month). */
  private async sumMany(queries: readonly UsedQuery[]): Promise<number[]> {
    const totals = new Map<string, number>();
    const periods = new Map<string, UsedQuery[]>();
    for (const q of queries) periods.set(`${q.from}:${q.to}`, [...(periods.get(`${q.from}:${q.to}`) ?? []), q]);
    for (const [period, group] of periods) {
      const accounts = [...new Set(group.map((q) => q.accountId))];
      const marks = placeholders(accounts.length);
      const first = group[0] as UsedQuery;
      // A calendar month (what run admission asks) has its running total; other periods are summed.
      const month = calendarMonthOf(new Date(first.from), new Date(first.to));
      const rows = rawRows(
        month
          ? await this.db.raw(`SELECT account_id, seconds AS total FROM gpu_usage_monthly WHERE month = ? AND account_id IN (${marks})`, [month, ...accounts])
          : await this.db.raw(
              `SELECT account_id, SUM(seconds) AS total FROM gpu_charges
                WHERE account_id IN (${marks}) AND charged_at >= ? AND charged_at < ?
                GROUP BY account_id`,
              [...accounts, first.from, first.to],
            ),
      );
      for (const r of rows) totals.set(`${period}:${String(r['account_id'])}`, Number(r['total'] ?? 0));
    }
    return queries.map((q) => totals.get(`${q.from}:${q.to}:${q.accountId}`) ?? 0);
  }
}
