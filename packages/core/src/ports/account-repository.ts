import type { Account, AccountStatus } from '../domain/account.js';
import type { Tier } from '../domain/tier.js';

export interface AccountPatch {
  readonly status?: AccountStatus;
  readonly tier?: Tier;
}

export interface AccountRepository {
  /** Stores a new account. */
  create(account: Account): Promise<void>;
  /** The account, or null when no account has that id. */
  get(id: string): Promise<Account | null>;
  /** Applies the patch and returns the account as it now is; null when not found. */
  update(id: string, patch: AccountPatch): Promise<Account | null>;
  /** Every account, oldest first. */
  list(): Promise<Account[]>;
}

export const ACCOUNT_REPOSITORY = Symbol.for('runload.core.AccountRepository');
