import type { AppVersion } from '../domain/app-version.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';

export class InMemoryAppVersionRepository implements AppVersionRepository {
  private readonly rows = new Map<string, AppVersion>();

  async create(version: AppVersion): Promise<void> {
    if (this.rows.has(version.id)) throw new Error(`app version ${version.id} already exists`);
    this.rows.set(version.id, structuredClone(version));
  }

  async get(id: string): Promise<AppVersion | null> {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }

  async markDeleted(id: string, at: Date): Promise<AppVersion | null> {
    const current = this.rows.get(id);
    if (!current) return null;
    const next: AppVersion = { ...current, deletedAt: earliest(current.deletedAt, at) };
    this.rows.set(id, next);
    return structuredClone(next);
  }

  async list(): Promise<AppVersion[]> {
    return [...this.rows.values()]
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((v) => structuredClone(v));
  }
}

function earliest(current: Date | null, at: Date): Date {
  return current !== null && current.getTime() <= at.getTime() ? current : new Date(at.getTime());
}
