import type { AuditEntry } from '../domain/audit.js';
import type { Backend, BackendState } from '../domain/backend.js';
import type { BackendPatch, BackendRegistry } from '../ports/backend-registry.js';
import { InMemoryAuditLog } from './in-memory-audit-log.js';

/** The pool's rows in memory (one process). */
export class InMemoryBackendRegistry implements BackendRegistry {
  private readonly rows = new Map<string, Backend>();

  constructor(private readonly audit: InMemoryAuditLog = new InMemoryAuditLog()) {}

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

  async create(backend: Backend, audit: readonly AuditEntry[] = []): Promise<boolean> {
    if (this.rows.has(backend.id) || (await this.getByUrl(backend.url))) return false;
    this.rows.set(backend.id, structuredClone(backend));
    for (const entry of audit) this.audit.append(entry);
    return true;
  }

  async update(id: string, patch: BackendPatch, states?: readonly BackendState[], audit: readonly AuditEntry[] = []): Promise<Backend | null> {
    const row = this.rows.get(id);
    if (!row || (states && !states.includes(row.state))) return null;
    const next = { ...row, ...structuredClone(patch) } as Backend;
    this.rows.set(id, next);
    for (const entry of audit) this.audit.append(entry);
    return structuredClone(next);
  }

  async delete(id: string, audit: readonly AuditEntry[] = []): Promise<boolean> {
    if (!this.rows.delete(id)) return false;
    for (const entry of audit) this.audit.append(entry);
    return true;
  }
}
