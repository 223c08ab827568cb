import type { Account, AccountStatus } from '../domain/account.js';
import type { AuditEntry } from '../domain/audit.js';
import type { Tier } from '../domain/tier.js';

export interface AccountPatch {
  readonly name?: string;
  readonly status?: AccountStatus;
  readonly tier?: Tier;
}

export interface AccountPage {
  readonly accounts: Account[];
  /** Pass back as `after` for the next (older) page; null on the last page. */
  readonly nextCursor: string | null;
}

export interface AccountRepository {
  /** Stores a new account, and its audit entries in the same transaction. */
  create(account: Account, audit?: readonly AuditEntry[]): Promise<void>;
  /** The account, or null when no account has that id. */
  get(id: string): Promise<Account | null>;
  /**
   * Applies the patch and writes the audit entries in one transaction; returns the account as it
   * now is, or null (and no entry) when not found.
   */
  update(id: string, patch: AccountPatch, audit?: readonly AuditEntry[]): Promise<Account | null>;
  /** Every account, oldest first. */
  list(): Promise<Account[]>;
  /**
   * Accounts newest first (ties by id, descending), `limit` at a time after the cursor of the
   * previous page, only those of `tier` and `status` when given.
   * @throws CoreError INVALID_REQUEST for a cursor this service did not issue
   */
  listPage(options: { limit: number; after?: string | null; tier?: Tier; status?: AccountStatus }): Promise<AccountPage>;
}

export const ACCOUNT_REPOSITORY = Symbol.for('runload.core.AccountRepository');
