import type { Backend, BackendState } from '../domain/backend.js';
import type { BackendPatch, BackendRegistry } from '../ports/backend-registry.js';

/** The pool's rows in memory (one process). */
export class InMemoryBackendRegistry implements BackendRegistry {
  private readonly rows = new Map<string, Backend>();

  async list(): Promise<Backend[]> {
    return [...this.rows.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.url < b.url ? -1 : 1)).map((b) => structuredClone(b));
  }

  async get(id: string): Promise<Backend | null> {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }

  async getByUrl(url: string): Promise<Backend | null> {
    for (const row of this.rows.values()) if (row.url === url) return structuredClone(row);
    return null;
  }

  async create(backend: Backend): Promise<boolean> {
    if (this.rows.has(backend.id) || (await this.getByUrl(backend.url))) return false;
    this.rows.set(backend.id, structuredClone(backend));
    return true;
  }

  async update(id: string, patch: BackendPatch, states?: readonly BackendState[]): Promise<Backend | null> {
    const row = this.rows.get(id);
    if (!row || (states && !states.includes(row.state))) return null;
    const next = { ...row, ...structuredClone(patch) } as Backend;
    this.rows.set(id, next);
    return structuredClone(next);
  }

  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }
}
