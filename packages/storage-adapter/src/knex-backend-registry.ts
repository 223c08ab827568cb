/** The pool's backends in SQLite or PostgreSQL, shared by every instance. */
import type { Knex } from 'knex';
import type { AuditEntry, Backend, BackendCredentials, BackendLabels, BackendPatch, BackendRegistry, BackendSource, BackendState } from '@runload/core';
import { json, jsonOrNull, msOrNull, toDate, toDateOrNull } from './columns.js';
import { insertAuditEntry } from './knex-audit-log.js';
import { guarded } from './storage-errors.js';

function toBackend(row: Record<string, unknown>): Backend {
  const depth = row['depth'];
  return {
    id: String(row['id']),
    url: String(row['url']),
    source: row['source'] as BackendSource,
    state: row['state'] as BackendState,
    labels: json<BackendLabels>(row['labels']),
    depth: depth === null || depth === undefined ? null : Number(depth),
    auth: jsonOrNull<BackendCredentials>(row['auth']),
    retiring: row['retiring'] === true || row['retiring'] === 1,
    createdAt: toDate(row['created_at']),
    expiresAt: toDateOrNull(row['expires_at']),
    reachable: row['reachable'] === null || row['reachable'] === undefined ? null : row['reachable'] === true || row['reachable'] === 1,
    comfyuiVersion: (row['comfyui_version'] as string | null) ?? null,
    capabilitiesHash: (row['capabilities_hash'] as string | null) ?? null,
    lastSeenAt: toDateOrNull(row['last_seen_at']),
  };
}

function fromPatch(patch: BackendPatch): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  if (patch.state !== undefined) row['state'] = patch.state;
  if (patch.labels !== undefined) row['labels'] = JSON.stringify(patch.labels);
  if (patch.depth !== undefined) row['depth'] = patch.depth;
  if (patch.auth !== undefined) row['auth'] = patch.auth === null ? null : JSON.stringify(patch.auth);
  if (patch.retiring !== undefined) row['retiring'] = patch.retiring;
  if (patch.expiresAt !== undefined) row['expires_at'] = msOrNull(patch.expiresAt);
  if (patch.reachable !== undefined) row['reachable'] = patch.reachable;
  if (patch.comfyuiVersion !== undefined) row['comfyui_version'] = patch.comfyuiVersion;
  if (patch.capabilitiesHash !== undefined) row['capabilities_hash'] = patch.capabilitiesHash;
  if (patch.lastSeenAt !== undefined) row['last_seen_at'] = msOrNull(patch.lastSeenAt);
  return row;
}

export class KnexBackendRegistry implements BackendRegistry {
  constructor(private readonly db: Knex) {}

  list(): Promise<Backend[]> {
    return guarded(async () => (await this.db('backends').orderBy([{ column: 'created_at' }, { column: 'url' }])).map(toBackend));
  }

  get(id: string): Promise<Backend | null> {
    return guarded(async () => {
      const row = await this.db('backends').where({ id }).first();
      return row ? toBackend(row) : null;
    });
  }

  getByUrl(url: string): Promise<Backend | null> {
    return guarded(async () => {
      const row = await this.db('backends').where({ url }).first();
      return row ? toBackend(row) : null;
    });
  }

  create(backend: Backend, audit: readonly AuditEntry[] = []): Promise<boolean> {
    return guarded(() =>
      this.withAudit(audit, async (trx) => {
        const rows = await trx('backends')
          .insert({ id: backend.id, url: backend.url, source: backend.source, created_at: backend.createdAt.getTime(), ...fromPatch(backend) })
          .onConflict()
          .ignore()
          .returning('id');
        const created = (rows as unknown[]).length > 0;
        if (created) for (const entry of audit) await insertAuditEntry(trx, entry);
        return created;
      }),
    );
  }

  update(id: string, patch: BackendPatch, states?: readonly BackendState[], audit: readonly AuditEntry[] = []): Promise<Backend | null> {
    return guarded(() =>
      this.withAudit(audit, async (trx) => {
        const query = trx('backends').where({ id });
        if (states) query.whereIn('state', [...states]);
        const changes = fromPatch(patch);
        const rows = Object.keys(changes).length === 0 ? await query.select('*') : await query.update(changes).returning('*');
        const row = (rows as Record<string, unknown>[])[0];
        if (!row) return null;
        for (const entry of audit) await insertAuditEntry(trx, entry);
        return toBackend(row);
      }),
    );
  }

  /**
   * Runs a change and its audit entries in one transaction; a change that records nothing (the
   * follower's frequent probes) runs without one.
   */
  private withAudit<T>(audit: readonly AuditEntry[], work: (db: Knex) => Promise<T>): Promise<T> {
    return audit.length === 0 ? work(this.db) : this.db.transaction((trx) => work(trx));
  }

  delete(id: string, audit: readonly AuditEntry[] = []): Promise<boolean> {
    return guarded(() =>
      this.withAudit(audit, async (trx) => {
        const deleted = (await trx('backends').where({ id }).delete()) > 0;
        if (deleted) for (const entry of audit) await insertAuditEntry(trx, entry);
        return deleted;
      }),
    );
  }
}
