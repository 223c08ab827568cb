/** What each account used in a calendar month (UTC): the figures of an invoice. */
import { CoreError } from '../../domain/errors.js';
import type { UsagePage, UsageRepository } from '../../ports/usage-repository.js';
import { pageSize } from './page-limit.js';

export const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

export class MonthlyUsage {
  constructor(private readonly usage: UsageRepository) {}

  /** @param month `YYYY-MM` @throws CoreError INVALID_REQUEST for a bad month, limit or cursor */
  async execute(options: { month: string; limit?: number; cursor?: string | null }): Promise<UsagePage & { month: string }> {
    const match = MONTH.exec(options.month);
    if (!match) throw new CoreError('INVALID_REQUEST', `month must be YYYY-MM, got ${JSON.stringify(options.month)}`);
    const [year, month] = [Number(match[1]), Number(match[2])];
    const from = new Date(Date.UTC(year, month - 1, 1));
    const to = new Date(Date.UTC(year, month, 1));
    const page = await this.usage.byAccount(from, to, { limit: pageSize(options.limit), after: options.cursor ?? null });
    return { month: options.month, ...page };
  }
}
