import type { GpuCharge } from '../ports/gpu-ledger.js';
import { decodeRunCursor, encodeRunCursor } from '../domain/run-cursor.js';
import type { AccountUsage, UsagePage, UsageRepository } from '../ports/usage-repository.js';
import type { InMemoryAccountRepository } from './in-memory-account-repository.js';
import type { InMemoryGpuLedger } from './in-memory-gpu-ledger.js';
import type { InMemoryRunRepository } from './in-memory-run-repository.js';

/** Usage read from the in-memory accounts, runs and ledger. */
export class InMemoryUsageRepository implements UsageRepository {
  constructor(
    private readonly accounts: InMemoryAccountRepository,
    private readonly runs: InMemoryRunRepository,
    private readonly ledger: InMemoryGpuLedger,
  ) {}

  async byAccount(from: Date, to: Date, options: { limit: number; after?: string | null }): Promise<UsagePage> {
    const after = options.after ? decodeRunCursor(options.after) : null;
    const all = (await this.accounts.list()).filter(
      (a) => !after || a.createdAt.getTime() > after.createdAtMs || (a.createdAt.getTime() === after.createdAtMs && a.id > after.id),
    );
    const within = (d: Date | null) => d !== null && d.getTime() >= from.getTime() && d.getTime() < to.getTime();
    const charges: readonly GpuCharge[] = this.ledger.all();
    const runs = this.runs.snapshot();
    const accounts: AccountUsage[] = all.slice(0, options.limit).map((account) => {
      const ended = runs.filter((r) => r.accountId === account.id && within(r.finishedAt));
      const count = (status: string) => ended.filter((r) => r.status === status).length;
      return {
        account,
        gpuSeconds: charges.filter((c) => c.accountId === account.id && within(c.chargedAt)).reduce((sum, c) => sum + c.seconds, 0),
        runs: { succeeded: count('succeeded'), failed: count('failed'), canceled: count('canceled'), expired: count('expired') },
      };
    });
    const last = accounts[accounts.length - 1]?.account;
    return { accounts, nextCursor: all.length > options.limit && last ? encodeRunCursor(last) : null };
  }

  async runsInFlight(accountId: string): Promise<{ queued: number; running: number }> {
    const mine = this.runs.snapshot().filter((r) => r.accountId === accountId);
    return { queued: mine.filter((r) => r.status === 'queued').length, running: mine.filter((r) => r.status === 'running' || r.status === 'canceling').length };
  }
}
