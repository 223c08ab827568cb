import type { Knex } from 'knex';
import { decodeRunCursor, encodeRunCursor, type AppVersion, type AppVersionPage, type AppVersionRepository, type AuditEntry, type InputSpec, type Workflow } from '@runload/core';
import { json, toDate, toDateOrNull } from './columns.js';
import { guarded } from './storage-errors.js';
import { insertAuditEntry } from './knex-audit-log.js';

function toVersion(row: Record<string, unknown>): AppVersion {
  return {
    id: String(row['id']),
    appId: String(row['app_id']),
    name: String(row['name']),
    workflow: json<Workflow>(row['workflow']),
    inputs: json<InputSpec[]>(row['inputs']),
    createdAt: toDate(row['created_at']),
    deletedAt: toDateOrNull(row['deleted_at']),
    ...(typeof row['graph_hash'] === 'string' ? { graphHash: row['graph_hash'] } : {}),
    ...(row['require_labels'] ? { requireLabels: json<Record<string, string>>(row['require_labels']) } : {}),
  };
}

function toRow(v: AppVersion): Record<string, unknown> {
  return {
    id: v.id,
    app_id: v.appId,
    name: v.name,
    workflow: JSON.stringify(v.workflow),
    inputs: JSON.stringify(v.inputs),
    created_at: v.createdAt.getTime(),
    deleted_at: v.deletedAt?.getTime() ?? null,
    graph_hash: v.graphHash ?? null,
    require_labels: v.requireLabels && Object.keys(v.requireLabels).length > 0 ? JSON.stringify(v.requireLabels) : null,
  };
}

export class KnexAppVersionRepository implements AppVersionRepository {
  constructor(private readonly db: Knex) {}

  create(v: AppVersion, audit?: AuditEntry): Promise<void> {
    return guarded(() =>
      this.db.transaction(async (trx) => {
        await trx('app_versions').insert(toRow(v));
        if (audit) await insertAuditEntry(trx, audit);
      }),
    );
  }

  findOrCreateForGraph(v: AppVersion & { readonly graphHash: string }): Promise<AppVersion> {
    return guarded(async () => {
      // The unique graph hash decides between instances: the first insert wins, the others read it.
      await this.db('app_versions').insert(toRow(v)).onConflict('graph_hash').ignore();
      const row = await this.db('app_versions').where({ graph_hash: v.graphHash }).first();
      return toVersion(row as Record<string, unknown>);
    });
  }

  get(id: string): Promise<AppVersion | null> {
    return guarded(async () => {
      const row = await this.db('app_versions').where({ id }).first();
      return row ? toVersion(row) : null;
    });
  }

  markDeleted(id: string, at: Date, audit?: AuditEntry): Promise<AppVersion | null> {
    return guarded(() =>
      this.db.transaction(async (trx) => {
        const row = await trx('app_versions').where({ id }).first();
        if (!row) return null;
        await trx('app_versions')
          .where({ id })
          .where((q) => q.whereNull('deleted_at').orWhere('deleted_at', '>', at.getTime()))
          .update({ deleted_at: at.getTime() });
        if (audit) await insertAuditEntry(trx, audit);
        return toVersion(await trx('app_versions').where({ id }).first());
      }),
    );
  }

  list(): Promise<AppVersion[]> {
    return guarded(async () => (await this.db('app_versions').whereNull('graph_hash').orderBy([{ column: 'created_at' }, { column: 'id' }])).map(toVersion));
  }

  async listLive(options: { limit: number; after?: string | null; includeDeleted?: boolean }): Promise<AppVersionPage> {
    // Decoded before the query so that a bad cursor is INVALID_REQUEST, not a storage failure.
    const after = options.after ? decodeRunCursor(options.after) : null;
    return guarded(async () => {
      const query = this.db('app_versions').whereNull('graph_hash');
      if (options.includeDeleted !== true) query.whereNull('deleted_at');
      if (after) {
        query.where('created_at', '<=', after.createdAtMs).where((q) => q.where('created_at', '<', after.createdAtMs).orWhere('id', '<', after.id));
      }
      const rows = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(options.limit + 1);
      const versions = rows.slice(0, options.limit).map(toVersion);
      const last = versions[versions.length - 1];
      return { versions, nextCursor: rows.length > options.limit && last ? encodeRunCursor(last) : null };
    });
  }
}
