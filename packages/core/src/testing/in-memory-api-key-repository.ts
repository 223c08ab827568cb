import type { ApiKey } from '../domain/api-key.js';
import type { ApiKeyRepository } from '../ports/api-key-repository.js';

export class InMemoryApiKeyRepository implements ApiKeyRepository {
  private readonly rows = new Map<string, ApiKey>();

  async create(key: ApiKey): Promise<void> {
    if (this.rows.has(key.id)) throw new Error(`api key ${key.id} already exists`);
    for (const row of this.rows.values()) if (row.prefix === key.prefix) throw new Error(`api key prefix ${key.prefix} already exists`);
    this.rows.set(key.id, key);
  }

  async findByPrefix(prefix: string): Promise<ApiKey | null> {
    for (const row of this.rows.values()) if (row.prefix === prefix) return row;
    return null;
  }

  async get(id: string): Promise<ApiKey | null> {
    return this.rows.get(id) ?? null;
  }

  async revoke(id: string, at: Date): Promise<ApiKey | null> {
    const current = this.rows.get(id);
    if (!current) return null;
    const next: ApiKey = { ...current, revokedAt: current.revokedAt ?? at };
    this.rows.set(id, next);
    return next;
  }
}
