import type { Account } from '../domain/account.js';

/** One account's use in a period: GPU-seconds charged, and its runs that ended, by how. */
export interface AccountUsage {
  readonly account: Account;
  readonly gpuSeconds: number;
  readonly runs: { readonly succeeded: number; readonly failed: number; readonly canceled: number; readonly expired: number };
}

export interface UsagePage {
  readonly accounts: AccountUsage[];
  /** Pass back as `after` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** What accounts used: the figures an invoice is made from. */
export interface UsageRepository {
  /**
   * Every account (oldest first, `limit` at a time) with the GPU-seconds charged to it in
   * `[from, to)` and its runs that ended in `[from, to)` by final status; an account that used
   * nothing has zeros.
   * @throws CoreError INVALID_REQUEST for a cursor this service did not issue
   */
  byAccount(from: Date, to: Date, options: { limit: number; after?: string | null }): Promise<UsagePage>;
  /** The account's runs waiting (`queued`) and under way (`running`, `canceling`) now. */
  runsInFlight(accountId: string): Promise<{ readonly queued: number; readonly running: number }>;
}

export const USAGE_REPOSITORY = Symbol.for('runload.core.UsageRepository');
