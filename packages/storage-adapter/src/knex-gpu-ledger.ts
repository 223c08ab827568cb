import type { Knex } from 'knex';
import type { GpuCharge, GpuLedger } from '@runload/core';
import { guarded } from './storage-errors.js';

/** The GPU-seconds ledger: one row per charged run, so charging twice changes nothing. */
export class KnexGpuLedger implements GpuLedger {
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
    return guarded(async () => {
      const row = await this.db('gpu_charges')
        .where({ account_id: accountId })
        .where('charged_at', '>=', from.getTime())
        .where('charged_at', '<', to.getTime())
        .sum<{ total: number | string | null }[]>({ total: 'seconds' })
        .first();
      return Number(row?.total ?? 0);
    });
  }
}
