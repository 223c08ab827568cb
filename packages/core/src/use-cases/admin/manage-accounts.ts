/**
 * Operator commands on accounts, for the CLI and the admin API alike. Every change is written with
 * its audit entries (the author is the CLI unless named), and reaches every instance's
 * authentication within a second.
 * @module
 */
import type { Account, AccountStatus } from '../../domain/account.js';
import { auditEntry, CLI_AUTHOR, type AuditEntry, type ChangeAuthor } from '../../domain/audit.js';
import { CoreError } from '../../domain/errors.js';
import { requireTier, type LimitsConfig } from '../../domain/limits.js';
import type { AccountPage, AccountPatch, AccountRepository } from '../../ports/account-repository.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { UsageRepository } from '../../ports/usage-repository.js';
import type { GpuQuotaState, RunAdmission } from '../run-admission.js';
import { pageSize } from './page-limit.js';

/** What an operator changes on an account; each field is checked, and unknown ones never reach here. */
export interface AccountChange {
  readonly name?: unknown;
  readonly tier?: unknown;
  readonly status?: unknown;
}

/** An account as support sees it: with its quota and the runs it has in flight. */
export interface AccountDetail {
  readonly account: Account;
  readonly quota: GpuQuotaState;
  readonly runsQueued: number;
  readonly runsRunning: number;
}

const STATUSES: readonly AccountStatus[] = ['active', 'suspended'];

export class ManageAccounts {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly limits: LimitsConfig,
    private readonly usage: UsageRepository,
    private readonly admission: RunAdmission,
  ) {}

  /** @throws CoreError INVALID_REQUEST for an empty name, INVALID_VALUE for an unknown tier */
  async create(name: unknown, tier: unknown, author: ChangeAuthor = CLI_AUTHOR): Promise<Account> {
    const account: Account = { id: this.ids.uuid(), name: requireName(name), tier: requireTier(this.limits, tier), status: 'active', createdAt: this.clock.now() };
    await this.accounts.create(account, [this.entry(author, 'account.create', account.id)]);
    return account;
  }

  /**
   * Applies a change (one audit entry per field that changes: `account.rename`, `account.set_tier`,
   * `account.suspend`, `account.unsuspend`). @throws CoreError ACCOUNT_NOT_FOUND, INVALID_REQUEST, INVALID_VALUE
   */
  async update(id: string, change: AccountChange, author: ChangeAuthor = CLI_AUTHOR): Promise<Account> {
    const patch: { -readonly [K in keyof AccountPatch]: AccountPatch[K] } = {};
    if (change.name !== undefined) patch.name = requireName(change.name);
    if (change.tier !== undefined) patch.tier = requireTier(this.limits, change.tier);
    if (change.status !== undefined) {
      if (!STATUSES.includes(change.status as AccountStatus)) throw new CoreError('INVALID_VALUE', `status must be one of ${STATUSES.join(', ')}`);
      patch.status = change.status as AccountStatus;
    }
    const current = await this.get(id);
    const entries: AuditEntry[] = [];
    if (patch.name !== undefined && patch.name !== current.name) entries.push(this.entry(author, 'account.rename', id));
    if (patch.tier !== undefined && patch.tier !== current.tier) entries.push(this.entry(author, 'account.set_tier', id));
    if (patch.status !== undefined && patch.status !== current.status) entries.push(this.entry(author, patch.status === 'suspended' ? 'account.suspend' : 'account.unsuspend', id));
    const account = await this.accounts.update(id, patch, entries);
    if (!account) throw notFound(id);
    return account;
  }

  suspend(id: string, author: ChangeAuthor = CLI_AUTHOR): Promise<Account> {
    return this.update(id, { status: 'suspended' }, author);
  }

  unsuspend(id: string, author: ChangeAuthor = CLI_AUTHOR): Promise<Account> {
    return this.update(id, { status: 'active' }, author);
  }

  setTier(id: string, tier: string, author: ChangeAuthor = CLI_AUTHOR): Promise<Account> {
    return this.update(id, { tier }, author);
  }

  /** Every account, oldest first (the CLI). */
  list(): Promise<Account[]> {
    return this.accounts.list();
  }

  /** A page of accounts, newest first. @throws CoreError INVALID_REQUEST, INVALID_VALUE for an unknown tier */
  listPage(options: { limit?: number; cursor?: string | null; tier?: string; status?: string }): Promise<AccountPage> {
    if (options.status !== undefined && !STATUSES.includes(options.status as AccountStatus)) {
      throw new CoreError('INVALID_VALUE', `status must be one of ${STATUSES.join(', ')}`);
    }
    return this.accounts.listPage({
      limit: pageSize(options.limit),
      after: options.cursor ?? null,
      ...(options.tier !== undefined ? { tier: requireTier(this.limits, options.tier) } : {}),
      ...(options.status !== undefined ? { status: options.status as AccountStatus } : {}),
    });
  }

  /** @throws CoreError ACCOUNT_NOT_FOUND */
  async get(id: string): Promise<Account> {
    const account = await this.accounts.get(id);
    if (!account) throw notFound(id);
    return account;
  }

  /** The account with its GPU quota and runs in flight. @throws CoreError ACCOUNT_NOT_FOUND */
  async detail(id: string): Promise<AccountDetail> {
    const account = await this.get(id);
    const [quota, inFlight] = await Promise.all([this.admission.quota(account), this.usage.runsInFlight(id)]);
    return { account, quota, runsQueued: inFlight.queued, runsRunning: inFlight.running };
  }

  private entry(author: ChangeAuthor, action: string, target: string): AuditEntry {
    return auditEntry(author, action, target, this.clock.now(), this.ids.uuid());
  }
}

function requireName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0) throw new CoreError('INVALID_REQUEST', 'An account needs a non-empty name');
  return name.trim();
}

function notFound(id: string): CoreError {
  return new CoreError('ACCOUNT_NOT_FOUND', `Account ${id} not found`);
}
