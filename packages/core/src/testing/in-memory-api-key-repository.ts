import type { ApiKey } from '../domain/api-key.js';
import type { ApiKeyRepository } from '../ports/api-key-repository.js';
import type { AuditEntry } from '../domain/audit.js';
import { InMemoryAuditLog } from './in-memory-audit-log.js';

export class InMemoryApiKeyRepository implements ApiKeyRepository {
  private readonly rows = new Map<string, ApiKey>();

  constructor(private readonly audit: InMemoryAuditLog = new InMemoryAuditLog()) {}

  async create(key: ApiKey, audit?: AuditEntry): Promise<void> {
    if (this.rows.has(key.id)) throw new Error(`api key ${key.id} already exists`);
    for (const row of this.rows.values()) if (row.prefix === key.prefix) throw new Error(`api key prefix ${key.prefix} already exists`);
    this.rows.set(key.id, structuredClone(key));
    if (audit) this.audit.append(audit);
  }

  async findByPrefix(prefix: string): Promise<ApiKey | null> {
    for (const row of this.rows.values()) if (row.prefix === prefix) return structuredClone(row);
    return null;
  }

  async get(id: string): Promise<ApiKey | null> {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }

  async listByAccount(accountId: string): Promise<ApiKey[]> {
    return [...this.rows.values()]
      .filter((row) => row.accountId === accountId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      .map((row) => structuredClone(row));
  }

  async revoke(id: string, at: Date, audit?: AuditEntry): Promise<ApiKey | null> {
    const current = this.rows.get(id);
    if (!current) return null;
    const next: ApiKey = { ...current, revokedAt: earliest(current.revokedAt, at) };
    this.rows.set(id, next);
    if (audit) this.audit.append(audit);
    return structuredClone(next);
  }

  async touch(id: string, at: Date): Promise<void> {
    const current = this.rows.get(id);
    if (!current || (current.lastUsedAt !== null && current.lastUsedAt.getTime() >= at.getTime())) return;
    this.rows.set(id, { ...current, lastUsedAt: new Date(at.getTime()) });
  }
}

function earliest(current: Date | null, at: Date): Date {
  return current !== null && current.getTime() <= at.getTime() ? current : new Date(at.getTime());
}
