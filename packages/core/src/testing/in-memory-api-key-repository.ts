import type { ApiKey } from '../domain/api-key.js';
import type { ApiKeyRepository } from '../ports/api-key-repository.js';

export class InMemoryApiKeyRepository implements ApiKeyRepository {
  private readonly rows = new Map<string, ApiKey>();

  async create(key: ApiKey): Promise<void> {
    if (this.rows.has(key.id)) throw new Error(`api key ${key.id} already exists`);
    for (const row of this.rows.values()) if (row.prefix === key.prefix) throw new Error(`api key prefix ${key.prefix} already exists`);
    this.rows.set(key.id, structuredClone(key));
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

  async revoke(id: string, at: Date): Promise<ApiKey | null> {
    const current = this.rows.get(id);
    if (!current) return null;
    const next: ApiKey = { ...current, revokedAt: earliest(current.revokedAt, at) };
    this.rows.set(id, next);
    return structuredClone(next);
  }
}

function earliest(current: Date | null, at: Date): Date {
  return current !== null && current.getTime() <= at.getTime() ? current : new Date(at.getTime());
}
