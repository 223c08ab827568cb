import type { AppVersion, Workflow } from '../domain/app-version.js';
import { decodeRunCursor, encodeRunCursor } from '../domain/run-cursor.js';
import type { AppVersionPage, AppVersionRepository } from '../ports/app-version-repository.js';
import type { AuditEntry } from '../domain/audit.js';
import { InMemoryAuditLog } from './in-memory-audit-log.js';

export class InMemoryAppVersionRepository implements AppVersionRepository {
  private readonly rows = new Map<string, AppVersion>();

  constructor(private readonly audit: InMemoryAuditLog = new InMemoryAuditLog()) {}

  async create(version: AppVersion, audit?: AuditEntry): Promise<void> {
    if (this.rows.has(version.id)) throw new Error(`app version ${version.id} already exists`);
    this.rows.set(version.id, structuredClone(version));
    if (audit) this.audit.append(audit);
  }

  async get(id: string): Promise<AppVersion | null> {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }

  /** A version's workflow, read at once (the in-memory run repository places runs with it). */
  workflowOf(id: string): Workflow | null {
    const row = this.rows.get(id);
    return row ? structuredClone(row.workflow) : null;
  }

  async markDeleted(id: string, at: Date, audit?: AuditEntry): Promise<AppVersion | null> {
    const current = this.rows.get(id);
    if (!current) return null;
    const next: AppVersion = { ...current, deletedAt: earliest(current.deletedAt, at) };
    this.rows.set(id, next);
    if (audit) this.audit.append(audit);
    return structuredClone(next);
  }

  async list(): Promise<AppVersion[]> {
    return [...this.rows.values()]
      .filter((v) => v.graphHash === undefined)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((v) => structuredClone(v));
  }

  async listLive(options: { limit: number; after?: string | null; includeDeleted?: boolean }): Promise<AppVersionPage> {
    const after = options.after ? decodeRunCursor(options.after) : null;
    const live = [...this.rows.values()]
      .filter((v) => v.graphHash === undefined && (options.includeDeleted === true || v.deletedAt === null))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .filter((v) => !after || v.createdAt.getTime() < after.createdAtMs || (v.createdAt.getTime() === after.createdAtMs && v.id < after.id));
    const versions = live.slice(0, options.limit).map((v) => structuredClone(v));
    const last = versions[versions.length - 1];
    return { versions, nextCursor: live.length > options.limit && last ? encodeRunCursor(last) : null };
  }

  async findOrCreateForGraph(version: AppVersion & { readonly graphHash: string }): Promise<AppVersion> {
    const stored = [...this.rows.values()].find((v) => v.graphHash === version.graphHash);
    if (stored) return structuredClone(stored);
    await this.create(version);
    return structuredClone(version);
  }
}

function earliest(current: Date | null, at: Date): Date {
  return current !== null && current.getTime() <= at.getTime() ? current : new Date(at.getTime());
}
