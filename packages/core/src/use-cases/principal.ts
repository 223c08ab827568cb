import type { Account } from '../domain/account.js';

/** Who is calling: the account behind a valid, unrevoked key. */
export interface Principal {
  readonly account: Account;
  readonly keyId: string;
}
