import type { AdminToken } from '../domain/admin-token.js';
import type { AuditEntry } from '../domain/audit.js';
import type { AdminTokenRepository } from '../ports/admin-token-repository.js';
import { InMemoryAuditLog } from './in-memory-audit-log.js';

export class InMemoryAdminTokenRepository implements AdminTokenRepository {
  private readonly rows = new Map<string, AdminToken>();

  constructor(private readonly audit: InMemoryAuditLog = new InMemoryAuditLog()) {}

  async create(token: AdminToken, audit: AuditEntry): Promise<void> {
    if (this.rows.has(token.id)) throw new Error(`admin token ${token.id} already exists`);
    for (const row of this.rows.values()) if (row.prefix === token.prefix) throw new Error(`admin token prefix ${token.prefix} already exists`);
    this.rows.set(token.id, structuredClone(token));
    this.audit.append(audit);
  }

  async findByPrefix(prefix: string): Promise<AdminToken | null> {
    for (const row of this.rows.values()) if (row.prefix === prefix) return structuredClone(row);
    return null;
  }

  async get(id: string): Promise<AdminToken | null> {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }

  async list(): Promise<AdminToken[]> {
    return [...this.rows.values()]
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((row) => structuredClone(row));
  }

  async revoke(id: string, at: Date, audit: AuditEntry): Promise<AdminToken | null> {
    const current = this.rows.get(id);
    if (!current) return null;
    const revokedAt = current.revokedAt !== null && current.revokedAt.getTime() <= at.getTime() ? current.revokedAt : new Date(at.getTime());
    this.rows.set(id, { ...current, revokedAt });
    this.audit.append(audit);
    return structuredClone(this.rows.get(id) as AdminToken);
  }

  async touch(id: string, at: Date): Promise<void> {
    const current = this.rows.get(id);
    if (!current || (current.lastUsedAt !== null && current.lastUsedAt.getTime() >= at.getTime())) return;
    this.rows.set(id, { ...current, lastUsedAt: new Date(at.getTime()) });
  }
}
