/**
 * The claim of a queued run together with a slot on a backend (CONTRACT: capacity across
 * instances, fair share, queue time), and the queue position that follows the same order.
 * @module
 */
import type { Knex } from 'knex';
import type { ClaimRequest, FreeBackend, Run } from '@runload/core';
import { placeholders, rawRows, toMs } from './columns.js';
import { dialectOf } from './open-database.js';
import { toRun } from './run-row.js';
import { ACTIVE_STATUSES } from './run-statements.js';

const ACTIVE = ACTIVE_STATUSES.map((s) => `'${s}'`).join(', ');
/** A run that holds a slot on a backend: placed there and not finished. */
const HOLDS_SLOT = `status IN (${ACTIVE}) AND backend_id IS NOT NULL`;
/** Runs held per account: fewer comes first in the claim order. */
const HELD_BY_ACCOUNT = `SELECT account_id, COUNT(*) AS n FROM runs WHERE ${HOLDS_SLOT} GROUP BY account_id`;
const WAITING = `status = 'queued' AND backend_id IS NULL`;
/** Candidates a claim looks at when the first ones fit no backend. */
const CANDIDATES = 20;

export async function claimNext(db: Knex, request: ClaimRequest): Promise<Run | null> {
  const offers = new Map(request.backends.filter((b) => b.capacity > 0).map((b) => [b.id, b.capacity]));
  if (offers.size === 0) return null;
  const known = knownBackendsOf(db);
  if (dialectOf(db) === 'sqlite') {
    const claimed = await db.transaction((trx) => claimInTransaction(trx, request, offers, 'sqlite', known));
    return claimed === 'skipped' ? null : claimed;
  }
  // Claims on other backends go side by side; when the backends this one could use are all being
  // claimed on, it waits for them (in id order, so two claims never wait on each other).
  const first = await db.transaction((trx) => claimInTransaction(trx, request, offers, 'skip-locked', known));
  if (first !== 'skipped') return first;
  const second = await db.transaction((trx) => claimInTransaction(trx, request, offers, 'wait', known));
  return second === 'skipped' ? null : second;
}

type Locking = 'sqlite' | 'skip-locked' | 'wait';

/** Per database, the backends whose row was seen committed: rows are never deleted, so never inserted again. */
const knownBackendsByDb = new WeakMap<Knex, Set<string>>();

function knownBackendsOf(db: Knex): Set<string> {
  let known = knownBackendsByDb.get(db);
  if (!known) knownBackendsByDb.set(db, (known = new Set()));
  return known;
}

/** The claim; 'skipped' when nothing fit the backends it could lock while others were locked. */
async function claimInTransaction(trx: Knex.Transaction, request: ClaimRequest, offers: ReadonlyMap<string, number>, locking: Locking, knownBackends: Set<string>): Promise<Run | null | 'skipped'> {
  const ids = [...offers.keys()].sort();
  const nowMs = request.now.getTime();
  const unknown = ids.filter((id) => !knownBackends.has(id));
  if (unknown.length > 0) {
    await trx.raw(`INSERT INTO dispatch_backends (id) VALUES ${unknown.map(() => '(?)').join(', ')} ON CONFLICT (id) DO NOTHING`, unknown);
    // Remembered once the row is surely there (its transaction committed).
    void trx.executionPromise.then(() => unknown.forEach((id) => knownBackends.add(id)), () => undefined);
  }
  // The backend rows are the lock every instance's claim takes: PostgreSQL locks them (or skips
  // those another claim holds); SQLite takes the database's write lock with this first write.
  if (locking === 'sqlite') await trx.raw(`UPDATE dispatch_backends SET touched_at = ? WHERE id IN (${placeholders(ids.length)})`, [nowMs, ...ids]);
  const lockClause = locking === 'skip-locked' ? 'FOR UPDATE SKIP LOCKED' : locking === 'wait' ? 'FOR UPDATE' : '';
  const locked = rawRows(
    await trx.raw(`SELECT id, last_app_version_id, last_placed_at FROM dispatch_backends WHERE id IN (${placeholders(ids.length)}) ORDER BY id ${lockClause}`, ids),
  );
  const skipped = locked.length < ids.length;
  const free = await freeBackends(trx, locked, offers);
  const claimed = free.length === 0 ? null : await claimFor(trx, request, free);
  return claimed === null && skipped ? 'skipped' : claimed;
}

/** The locked backends with room: their capacity less the runs they hold (of every instance). */
async function freeBackends(trx: Knex.Transaction, locked: readonly Record<string, unknown>[], offers: ReadonlyMap<string, number>): Promise<FreeBackend[]> {
  if (locked.length === 0) return [];
  const held = new Map(
    rawRows(
      await trx.raw(
        `SELECT backend_id, COUNT(*) AS n FROM runs WHERE backend_id IN (${placeholders(locked.length)}) AND status IN (${ACTIVE}) GROUP BY backend_id`,
        locked.map((b) => String(b['id'])),
      ),
    ).map((r) => [String(r['backend_id']), Number(r['n'])]),
  );
  const free: FreeBackend[] = [];
  for (const b of locked) {
    const id = String(b['id']);
    const room = (offers.get(id) ?? 0) - (held.get(id) ?? 0);
    const placedAt = b['last_placed_at'];
    if (room > 0) free.push({ id, room, lastAppVersionId: (b['last_app_version_id'] as string | null) ?? null, lastPlacedAtMs: placedAt === null || placedAt === undefined ? null : toMs(placedAt) });
  }
  return free;
}

/** The first candidate in fair-share order that placement puts on one of the free backends. */
async function claimFor(trx: Knex.Transaction, request: ClaimRequest, free: readonly FreeBackend[]): Promise<Run | null> {
  const nowMs = request.now.getTime();
  const candidates = rawRows(
    await trx.raw(
      `SELECT q.* FROM runs q LEFT JOIN (${HELD_BY_ACCOUNT}) h ON h.account_id = q.account_id
        WHERE q.status = 'queued' AND q.backend_id IS NULL AND q.created_at >= ?
          AND (q.lease_owner IS NULL OR q.lease_expires_at IS NULL OR q.lease_expires_at <= ?)
        ORDER BY COALESCE(h.n, 0), q.created_at, q.id LIMIT ${CANDIDATES}`,
      [request.queuedSince.getTime(), nowMs],
    ),
  ).map(toRun);
  for (const candidate of candidates) {
    const backendId = request.place(candidate, free);
    if (backendId === null || !free.some((b) => b.id === backendId)) continue;
    // Guarded again: a claim on other backends may have taken this run meanwhile.
    const claimed = rawRows(
      await trx.raw(
        `UPDATE runs SET lease_owner = ?, lease_expires_at = ?, backend_id = ?
          WHERE id = ? AND ${WAITING} AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= ?) RETURNING *`,
        [request.owner, request.leaseExpiresAt.getTime(), backendId, candidate.id, nowMs],
      ),
    )[0];
    if (!claimed) continue;
    await trx.raw('UPDATE dispatch_backends SET last_app_version_id = ?, last_placed_at = ? WHERE id = ?', [candidate.appVersionId, nowMs, backendId]);
    return toRun(claimed);
  }
  return null;
}

/**
 * For each run, how many waiting runs start before it in the claim order: an account's k-th
 * waiting run (0-based) ranks k plus the runs the account holds on backends; ties by age.
 *
 * Counted per account, never run against run (that grew with the square of the queue). For `me`
 * of rank R, an account a holding h_a runs with w_a waiting has min(w_a, max(0, R - h_a)) runs of
 * lower rank, and its run of rank exactly R starts first when it is older than `me`, i.e. when
 * more than R - h_a of its runs are older. w_a is one pass over the waiting-runs index; the runs
 * older than `me` are index ranges (runs_waiting is ordered by account, then age).
 */
export async function countStartingBefore(db: Knex, runs: readonly Run[]): Promise<number[]> {
  const unique = [...new Map(runs.map((r) => [r.id, r])).values()];
  const rows = rawRows(
    await db.raw(
      `WITH held AS (${HELD_BY_ACCOUNT}),
       accounts AS (
         SELECT w.account_id AS account_id, w.n AS w, COALESCE(held.n, 0) AS h
           FROM (SELECT account_id, COUNT(*) AS n FROM runs WHERE ${WAITING} GROUP BY account_id) w
           LEFT JOIN held ON held.account_id = w.account_id),
       me AS (
         SELECT id, account_id, created_at FROM runs
          WHERE id IN (${placeholders(unique.length)}) AND status = 'queued' AND backend_id IS NULL),
       pairs AS (
         SELECT me.id AS id, me.account_id AS mine, a.account_id AS account_id, a.w AS w, a.h AS h,
                (SELECT COUNT(*) FROM runs o
                  WHERE o.status = 'queued' AND o.backend_id IS NULL AND o.account_id = a.account_id
                    AND o.created_at <= me.created_at AND (o.created_at < me.created_at OR o.id < me.id)) AS older
           FROM me CROSS JOIN accounts a),
       ranks AS (SELECT id, older + h AS r FROM pairs WHERE account_id = mine)
       SELECT p.id AS id,
              SUM(CASE WHEN ranks.r <= p.h THEN 0 WHEN ranks.r - p.h < p.w THEN ranks.r - p.h ELSE p.w END
                  + CASE WHEN p.h <= ranks.r AND p.older > ranks.r - p.h THEN 1 ELSE 0 END) AS n
         FROM pairs p JOIN ranks ON ranks.id = p.id
        GROUP BY p.id`,
      unique.map((r) => r.id),
    ),
  );
  const byId = new Map(rows.map((row) => [String(row['id']), Number(row['n'])]));
  return runs.map((r) => byId.get(r.id) ?? 0);
}
