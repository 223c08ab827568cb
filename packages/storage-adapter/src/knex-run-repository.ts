/**
 * Runs in SQLite or PostgreSQL. State changes are compare-and-set updates; claims are single
 * atomic statements (PostgreSQL skips rows other dispatchers have locked).
 * @module
 */
import type { Knex } from 'knex';
import { decodeRunCursor, encodeRunCursor, type Run, type RunPage, type RunPatch, type RunRepository, type RunUpdateGuard } from '@runload/core';
import { rawRows } from './columns.js';
import { dialectOf } from './open-database.js';
import { fromPatch, fromRun, toRun } from './run-row.js';
import { guarded } from './storage-errors.js';

const ACTIVE = ['queued', 'running', 'canceling'];
// Keyset conditions are written `created_at <= x AND (created_at < x OR id < y)` rather than
// `created_at < x OR (created_at = x AND id < y)`: the same rows, but an index range for the planner.
const ESTIMATE_WINDOW = 20;

export class KnexRunRepository implements RunRepository {
  private readonly skipLocked: string;

  constructor(private readonly db: Knex) {
    this.skipLocked = dialectOf(db) === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
  }

  create(run: Run): Promise<void> {
    return guarded(async () => {
      await this.db('runs').insert(fromRun(run));
    });
  }

  get(id: string): Promise<Run | null> {
    return guarded(async () => {
      // Raw SQL on the hot paths (every poll): the query builder costs more than SQLite's lookup.
      const row = rawRows(await this.db.raw('SELECT * FROM runs WHERE id = ?', [id]))[0];
      return row ? toRun(row) : null;
    });
  }

  update(id: string, patch: RunPatch, guard: RunUpdateGuard = {}): Promise<Run | null> {
    return guarded(async () => {
      const query = this.db('runs').where({ id });
      if (guard.status) query.whereIn('status', [...guard.status]);
      if (guard.leaseOwner !== undefined) query.where({ lease_owner: guard.leaseOwner });
      const changes = fromPatch(patch);
      // One compare-and-set statement; RETURNING gives the row this statement wrote, not a later one.
      const rows = Object.keys(changes).length === 0 ? await query.select('*') : await query.update(changes).returning('*');
      const row = (rows as Record<string, unknown>[])[0];
      return row ? toRun(row) : null;
    });
  }

  delete(id: string): Promise<boolean> {
    return guarded(async () => (await this.db('runs').where({ id }).delete()) > 0);
  }

  listByAccount(accountId: string, options: { limit: number; after?: string | null }): Promise<RunPage> {
    return guarded(async () => {
      const query = this.db('runs').where({ account_id: accountId });
      if (options.after) {
        const c = decodeRunCursor(options.after);
        query.where('created_at', '<=', c.createdAtMs).where((q) => q.where('created_at', '<', c.createdAtMs).orWhere('id', '<', c.id));
      }
      const rows = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(options.limit + 1);
      const runs = rows.slice(0, options.limit).map(toRun);
      const last = runs[runs.length - 1];
      return { runs, nextCursor: rows.length > options.limit && last ? encodeRunCursor(last) : null };
    });
  }

  queuePosition(run: Run): Promise<number> {
    return guarded(async () => {
      const created = run.createdAt.getTime();
      const rows = rawRows(
        await this.db.raw(`SELECT COUNT(*) AS n FROM runs WHERE status = 'queued' AND created_at <= ? AND (created_at < ? OR id < ?)`, [created, created, run.id]),
      );
      return Number(rows[0]?.['n'] ?? 0);
    });
  }

  claimNextQueued(owner: string, leaseExpiresAt: Date, now: Date): Promise<Run | null> {
    return guarded(async () => {
      const result = await this.db.raw(
        `UPDATE runs SET lease_owner = ?, lease_expires_at = ?
          WHERE id = (SELECT id FROM runs
                       WHERE status = 'queued' AND backend_id IS NULL
                         AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= ?)
                       ORDER BY created_at, id LIMIT 1 ${this.skipLocked})
            AND status = 'queued' AND backend_id IS NULL
            AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= ?)
          RETURNING *`,
        [owner, leaseExpiresAt.getTime(), now.getTime(), now.getTime()],
      );
      const row = rawRows(result)[0];
      return row ? toRun(row) : null;
    });
  }

  acquireLease(id: string, owner: string, leaseExpiresAt: Date, now: Date): Promise<Run | null> {
    return guarded(async () => {
      const rows = await this.db('runs')
        .where({ id })
        .whereIn('status', ACTIVE)
        .where((q) => q.whereNull('lease_owner').orWhere('lease_owner', owner).orWhereNull('lease_expires_at').orWhere('lease_expires_at', '<=', now.getTime()))
        .update({ lease_owner: owner, lease_expires_at: leaseExpiresAt.getTime() })
        .returning('*');
      const row = (rows as Record<string, unknown>[])[0];
      return row ? toRun(row) : null;
    });
  }

  listOrphaned(now: Date, limit: number): Promise<Run[]> {
    return guarded(async () => {
      const rows = await this.db('runs')
        .whereIn('status', ACTIVE)
        .whereNotNull('backend_id')
        .where((q) => q.whereNull('lease_owner').orWhereNull('lease_expires_at').orWhere('lease_expires_at', '<=', now.getTime()))
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .limit(limit);
      return rows.map(toRun);
    });
  }

  renewLeases(owner: string, leaseExpiresAt: Date): Promise<number> {
    return guarded(() => this.db('runs').where({ lease_owner: owner }).whereIn('status', ACTIVE).update({ lease_expires_at: leaseExpiresAt.getTime() }));
  }

  releaseLeases(owner: string): Promise<number> {
    return guarded(() => this.db('runs').where({ lease_owner: owner }).update({ lease_owner: null, lease_expires_at: null }));
  }

  listQueuedBefore(createdBefore: Date, limit: number): Promise<Run[]> {
    return guarded(async () => {
      const rows = await this.db('runs')
        .where({ status: 'queued' })
        .where('created_at', '<', createdBefore.getTime())
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .limit(limit);
      return rows.map(toRun);
    });
  }

  countActive(accountId: string): Promise<number> {
    return guarded(async () => {
      const row = await this.db('runs').where({ account_id: accountId }).whereIn('status', ACTIVE).count<{ n: number | string }[]>({ n: '*' }).first();
      return Number(row?.n ?? 0);
    });
  }

  estimateInFlightGpuSeconds(accountId: string): Promise<number> {
    return guarded(async () => {
      // Counted in the database, one row per app version in flight: an account with thousands of
      // queued runs costs one index range scan here, not thousands of rows sent to us. The recent
      // mean of each version comes from its (app_version_id, finished_at) index, 20 rows at most.
      const rows = rawRows(
        await this.db.raw(
          `SELECT active.n AS n,
                  (SELECT AVG(recent.gpu_seconds) FROM (
                     SELECT gpu_seconds FROM runs
                      WHERE app_version_id = active.app_version_id AND finished_at IS NOT NULL AND gpu_seconds IS NOT NULL
                      ORDER BY finished_at DESC LIMIT ${ESTIMATE_WINDOW}) recent) AS mean
             FROM (SELECT app_version_id, COUNT(*) AS n FROM runs
                    WHERE account_id = ? AND status IN (${ACTIVE.map(() => '?').join(', ')})
                    GROUP BY app_version_id) active`,
          [accountId, ...ACTIVE],
        ),
      );
      return rows.reduce((total, r) => total + (r['mean'] === null ? 0 : Number(r['mean']) * Number(r['n'])), 0);
    });
  }
}
