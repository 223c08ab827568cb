import type { Knex } from 'knex';
import type { AppVersion, AppVersionRepository, InputSpec, Workflow } from '@runload/core';
import { json, toDate, toDateOrNull } from './columns.js';
import { guarded } from './storage-errors.js';

function toVersion(row: Record<string, unknown>): AppVersion {
  return {
    id: String(row['id']),
    appId: String(row['app_id']),
    name: String(row['name']),
    workflow: json<Workflow>(row['workflow']),
    inputs: json<InputSpec[]>(row['inputs']),
    createdAt: toDate(row['created_at']),
    deletedAt: toDateOrNull(row['deleted_at']),
  };
}

export class KnexAppVersionRepository implements AppVersionRepository {
  constructor(private readonly db: Knex) {}

  create(v: AppVersion): Promise<void> {
    return guarded(async () => {
      await this.db('app_versions').insert({
        id: v.id,
        app_id: v.appId,
        name: v.name,
        workflow: JSON.stringify(v.workflow),
        inputs: JSON.stringify(v.inputs),
        created_at: v.createdAt.getTime(),
        deleted_at: v.deletedAt?.getTime() ?? null,
      });
    });
  }

  get(id: string): Promise<AppVersion | null> {
    return guarded(async () => {
      const row = await this.db('app_versions').where({ id }).first();
      return row ? toVersion(row) : null;
    });
  }

  markDeleted(id: string, at: Date): Promise<AppVersion | null> {
    return guarded(async () => {
      await this.db('app_versions')
        .where({ id })
        .where((q) => q.whereNull('deleted_at').orWhere('deleted_at', '>', at.getTime()))
        .update({ deleted_at: at.getTime() });
      return this.get(id);
    });
  }

  list(): Promise<AppVersion[]> {
    return guarded(async () => (await this.db('app_versions').orderBy([{ column: 'created_at' }, { column: 'id' }])).map(toVersion));
  }
}
