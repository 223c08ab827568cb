import type { Account, AccountStatus } from '../domain/account.js';
import type { AuditEntry } from '../domain/audit.js';
import { decodeRunCursor, encodeRunCursor } from '../domain/run-cursor.js';
import type { AccountPage, AccountPatch, AccountRepository } from '../ports/account-repository.js';
import { InMemoryAuditLog } from './in-memory-audit-log.js';

export class InMemoryAccountRepository implements AccountRepository {
  private readonly rows = new Map<string, Account>();

  constructor(private readonly audit: InMemoryAuditLog = new InMemoryAuditLog()) {}

  async create(account: Account, audit: readonly AuditEntry[] = []): Promise<void> {
    if (this.rows.has(account.id)) throw new Error(`account ${account.id} already exists`);
    this.rows.set(account.id, structuredClone(account));
    for (const entry of audit) this.audit.append(entry);
  }

  async get(id: string): Promise<Account | null> {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }

  async update(id: string, patch: AccountPatch, audit: readonly AuditEntry[] = []): Promise<Account | null> {
    const current = this.rows.get(id);
    if (!current) return null;
    const next: Account = { ...current, ...patch };
    this.rows.set(id, next);
    for (const entry of audit) this.audit.append(entry);
    return structuredClone(next);
  }

  async list(): Promise<Account[]> {
    return [...this.rows.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((a) => structuredClone(a));
  }

  async listPage(options: { limit: number; after?: string | null; tier?: string; status?: AccountStatus }): Promise<AccountPage> {
    const after = options.after ? decodeRunCursor(options.after) : null;
    const found = [...this.rows.values()]
      .filter((a) => (options.tier === undefined || a.tier === options.tier) && (options.status === undefined || a.status === options.status))
      .filter((a) => !after || a.createdAt.getTime() < after.createdAtMs || (a.createdAt.getTime() === after.createdAtMs && a.id < after.id))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const accounts = found.slice(0, options.limit).map((a) => structuredClone(a));
    const last = accounts[accounts.length - 1];
    return { accounts, nextCursor: found.length > options.limit && last ? encodeRunCursor(last) : null };
  }
}
