/** Operator commands on accounts (the CLI). Changes take effect on the next request. */
import type { Account } from '../../domain/account.js';
import { CoreError } from '../../domain/errors.js';
import { requireTier, type LimitsConfig } from '../../domain/limits.js';
import type { AccountPatch, AccountRepository } from '../../ports/account-repository.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';

export class ManageAccounts {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly limits: LimitsConfig,
  ) {}

  /** @throws CoreError INVALID_REQUEST for an empty name or unknown tier */
  async create(name: string, tier: string): Promise<Account> {
    if (name.trim().length === 0) throw new CoreError('INVALID_REQUEST', 'An account needs a non-empty --name');
    const account: Account = { id: this.ids.uuid(), name: name.trim(), tier: requireTier(this.limits, tier), status: 'active', createdAt: this.clock.now() };
    await this.accounts.create(account);
    return account;
  }

  suspend(id: string): Promise<Account> {
    return this.patch(id, { status: 'suspended' });
  }

  unsuspend(id: string): Promise<Account> {
    return this.patch(id, { status: 'active' });
  }

  setTier(id: string, tier: string): Promise<Account> {
    return this.patch(id, { tier: requireTier(this.limits, tier) });
  }

  list(): Promise<Account[]> {
    return this.accounts.list();
  }

  private async patch(id: string, patch: AccountPatch): Promise<Account> {
    const account = await this.accounts.update(id, patch);
    if (!account) throw new CoreError('ACCOUNT_NOT_FOUND', `Account ${id} not found`);
    return account;
  }
}
