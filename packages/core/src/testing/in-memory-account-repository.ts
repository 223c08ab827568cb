import type { Account } from '../domain/account.js';
import type { AccountPatch, AccountRepository } from '../ports/account-repository.js';

export class InMemoryAccountRepository implements AccountRepository {
  private readonly rows = new Map<string, Account>();

  async create(account: Account): Promise<void> {
    if (this.rows.has(account.id)) throw new Error(`account ${account.id} already exists`);
    this.rows.set(account.id, structuredClone(account));
  }

  async get(id: string): Promise<Account | null> {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }

  async update(id: string, patch: AccountPatch): Promise<Account | null> {
    const current = this.rows.get(id);
    if (!current) return null;
    const next: Account = { ...current, ...patch };
    this.rows.set(id, next);
    return structuredClone(next);
  }

  async list(): Promise<Account[]> {
    return [...this.rows.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((a) => structuredClone(a));
  }
}
