import type { Account } from '../domain/account.js';
import type { AccountPatch, AccountRepository } from '../ports/account-repository.js';

export class InMemoryAccountRepository implements AccountRepository {
  private readonly rows = new Map<string, Account>();

  async create(account: Account): Promise<void> {
    if (this.rows.has(account.id)) throw new Error(`account ${account.id} already exists`);
    this.rows.set(account.id, account);
  }

  async get(id: string): Promise<Account | null> {
    return this.rows.get(id) ?? null;
  }

  async update(id: string, patch: AccountPatch): Promise<Account | null> {
    const current = this.rows.get(id);
    if (!current) return null;
    const next: Account = { ...current, ...patch };
    this.rows.set(id, next);
    return next;
  }

  async list(): Promise<Account[]> {
    return [...this.rows.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  }
}
