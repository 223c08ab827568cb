/**
 * Runs in SQLite or PostgreSQL. State changes are compare-and-set updates; claims are single
 * atomic statements (PostgreSQL skips rows other dispatchers have locked).
 * @module
 */
import type { Knex } from 'knex';
import { decodeRunCursor, encodeRunCursor, type AuditEntry, type BackendUsage, type RunStatus, type ClaimRequest, type Run, type RunPage, type RunPatch, type RunRepository, type RunUpdateGuard, type RunWithQueuePosition } from '@runload/core';
import { claimMany, claimNext, FAILING_OVER, HOLDS_SLOT, LEASE_FREE } from './claim-statements.js';
import { VersionWorkflows } from './version-workflows.js';
import { countStartingBefore, selectRunsWithPositions } from './queue-positions.js';
import { rawRows } from './columns.js';
import { dialectOf } from './open-database.js';
import { fromPatch, fromRun, toRun } from './run-row.js';
import { ACTIVE_STATUSES, estimateInFlight, estimateVersions, insertRuns, selectRuns } from './run-statements.js';
import { guarded } from './storage-errors.js';
import { insertAuditEntry } from './knex-audit-log.js';
import { TickBatch } from './tick-batch.js';

const ACTIVE = [...ACTIVE_STATUSES];

/** One compare-and-set statement; RETURNING gives the row this statement wrote, not a later one. */
async function updateRun(db: Knex, id: string, patch: RunPatch, guard: RunUpdateGuard): Promise<Run | null> {
  const query = db('runs').where({ id });
  if (guard.status) query.whereIn('status', [...guard.status]);
  if (guard.leaseOwner !== undefined) query.where({ lease_owner: guard.leaseOwner });
  if (guard.unplaced) query.whereNull('backend_id');
  if (guard.waitingForRoom) query.where('waits_for_room', true);
  const changes = fromPatch(patch);
  const rows = Object.keys(changes).length === 0 ? await query.select('*') : await query.update(changes).returning('*');
  const row = (rows as Record<string, unknown>[])[0];
  return row ? toRun(row) : null;
}

export class KnexRunRepository implements RunRepository {
  private readonly skipLocked: string;

  // The calls of every poll and run creation, served a turn of the event loop at a time.
  private readonly reads: TickBatch<string, Run | null>;
  private readonly inserts: TickBatch<Run, void>;
  private readonly positions: TickBatch<Run, number>;
  private readonly polls: TickBatch<string, RunWithQueuePosition | null>;
  private readonly estimates: TickBatch<string, number>;
  /** The workflows claims place runs with, read once per version. */
  private readonly workflows = new VersionWorkflows();

  constructor(private readonly db: Knex) {
    this.skipLocked = dialectOf(db) === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    this.reads = new TickBatch((ids) => selectRuns(db, ids));
    // A bad row (a duplicate id, say) fails only its own create.
    this.inserts = new TickBatch((runs) => insertRuns(db, runs), { maxItems: 50, isolateFailures: true });
    this.positions = new TickBatch((runs) => countStartingBefore(db, runs), { maxItems: 100 });
    this.polls = new TickBatch((ids) => selectRunsWithPositions(db, ids), { maxItems: 100 });
    this.estimates = new TickBatch((accounts) => estimateInFlight(db, accounts), { maxItems: 100 });
  }

  create(run: Run): Promise<void> {
    return guarded(() => this.inserts.add(run));
  }

  get(id: string): Promise<Run | null> {
    return guarded(() => this.reads.add(id));
  }

  update(id: string, patch: RunPatch, guard: RunUpdateGuard = {}, audit?: AuditEntry): Promise<Run | null> {
    if (audit) {
      // An operator's change: the run and its audit entry in one transaction.
      return guarded(() =>
        this.db.transaction(async (trx) => {
          const run = await updateRun(trx, id, patch, guard);
          if (run) await insertAuditEntry(trx, audit);
          return run;
        }),
      );
    }
    return guarded(() => updateRun(this.db, id, patch, guard));
  }

  // Keyset conditions are written `created_at <= x AND (created_at < x OR id < y)` rather than
  // `created_at < x OR (created_at = x AND id < y)`: the same rows, but an index range for the planner.
  listAll(options: { limit: number; after?: string | null; accountId?: string; status?: RunStatus }): Promise<RunPage> {
    return guarded(async () => {
      const query = this.db('runs');
      if (options.accountId !== undefined) query.where({ account_id: options.accountId });
      if (options.status !== undefined) query.where({ status: options.status });
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

  delete(id: string): Promise<boolean> {
    return guarded(async () => (await this.db('runs').where({ id }).delete()) > 0);
  }

  listByAccount(accountId: string, options: { limit: number; after?: string | null }): Promise<RunPage> {
    return this.listAll({ ...options, accountId });
  }

  getWithQueuePosition(id: string): Promise<RunWithQueuePosition | null> {
    return guarded(() => this.polls.add(id));
  }

  queuePosition(run: Run): Promise<number> {
    return guarded(() => this.positions.add(run));
  }

  claimNextQueued(owner: string, leaseExpiresAt: Date, now: Date, backendId?: string): Promise<Run | null> {
    return guarded(async () => {
      const result = await this.db.raw(
        `UPDATE runs SET lease_owner = ?, lease_expires_at = ?, backend_id = ?
          WHERE id = (SELECT id FROM runs
                       WHERE status = 'queued' AND backend_id IS NULL
                         AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= ?)
                       ORDER BY created_at, id LIMIT 1 ${this.skipLocked})
            AND status = 'queued' AND backend_id IS NULL
            AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= ?)
          RETURNING *`,
        [owner, leaseExpiresAt.getTime(), backendId ?? null, now.getTime(), now.getTime()],
      );
      const row = rawRows(result)[0];
      return row ? toRun(row) : null;
    });
  }

  claimMany(request: ClaimRequest, max: number): Promise<Run[]> {
    return guarded(() => claimMany(this.db, request, max, this.workflows));
  }

  claimNext(request: ClaimRequest): Promise<Run | null> {
    return guarded(() => claimNext(this.db, request, this.workflows));
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
      // The runs on backends first (a pool's worth, found by their status), then their order.
      // Asked for in that order, PostgreSQL walked runs_by_age instead, past every finished run:
      // 0.6 s a recovery tick on a million runs, for none found.
      const result = await this.db.raw(
        `WITH holding AS MATERIALIZED (SELECT * FROM runs WHERE ${HOLDS_SLOT} AND ${LEASE_FREE})
         SELECT * FROM holding ORDER BY created_at, id LIMIT ?`,
        [now.getTime(), limit],
      );
      return rawRows(result).map(toRun);
    });
  }

  renewLeases(owner: string, leaseExpiresAt: Date, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return Promise.resolve(0);
    return guarded(() =>
      this.db('runs').whereIn('id', [...ids]).where({ lease_owner: owner }).whereIn('status', ACTIVE).update({ lease_expires_at: leaseExpiresAt.getTime() }),
    );
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

  countCreated(accountId: string, from: Date, to: Date): Promise<number> {
    return guarded(async () => {
      // A range of runs_by_account (account_id, created_at, id).
      const row = await this.db('runs')
        .where({ account_id: accountId })
        .where('created_at', '>=', from.getTime())
        .where('created_at', '<', to.getTime())
        .count<{ n: number | string }[]>({ n: '*' })
        .first();
      return Number(row?.n ?? 0);
    });
  }

  estimateInFlightGpuSeconds(accountId: string): Promise<number> {
    return guarded(() => this.estimates.add(accountId));
  }

  estimateGpuSeconds(appVersionIds: readonly string[]): Promise<number[]> {
    return guarded(() => estimateVersions(this.db, appVersionIds));
  }

  heldByBackend(): Promise<Map<string, number>> {
    return guarded(async () => {
      const rows = rawRows(await this.db.raw(`SELECT backend_id, COUNT(*) AS n FROM runs WHERE ${HOLDS_SLOT} AND NOT waits_for_room GROUP BY backend_id`));
      return new Map(rows.map((r) => [String(r['backend_id']), Number(r['n'])]));
    });
  }

  leaveWaiting(id: string, owner: string, leaseExpiresAt: Date): Promise<boolean> {
    return guarded(async () => {
      const changed = await this.db('runs')
        .where({ id, waits_for_room: true, status: 'queued', lease_owner: owner })
        .update({ waits_for_room: false, lease_expires_at: leaseExpiresAt.getTime() });
      return changed > 0;
    });
  }

  backendUsage(): Promise<Map<string, BackendUsage>> {
    return guarded(async () => {
      const [finished, placed] = await Promise.all([
        // Kept by triggers as runs finish (migration 017): the history is not read again.
        this.db.raw(`SELECT backend_id, runs_executed AS n, gpu_seconds AS gpu FROM backend_usage WHERE runs_executed > 0`),
        this.db.raw(`SELECT id, last_app_version_id FROM dispatch_backends WHERE last_app_version_id IS NOT NULL`),
      ]);
      const usage = new Map<string, BackendUsage>();
      for (const r of rawRows(finished)) usage.set(String(r['backend_id']), { runsExecuted: Number(r['n']), gpuSeconds: Number(r['gpu']), lastAppVersionId: null });
      for (const r of rawRows(placed)) {
        const id = String(r['id']);
        usage.set(id, { ...(usage.get(id) ?? { runsExecuted: 0, gpuSeconds: 0 }), lastAppVersionId: String(r['last_app_version_id']) });
      }
      return usage;
    });
  }

  listFailingOver(limit: number): Promise<Run[]> {
    return guarded(async () => {
      const rows = rawRows(await this.db.raw(`SELECT * FROM runs WHERE ${FAILING_OVER} ORDER BY created_at, id LIMIT ${Math.max(0, Math.floor(limit))}`));
      return rows.map(toRun);
    });
  }
}
