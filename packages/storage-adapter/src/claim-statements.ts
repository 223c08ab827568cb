/**
 * The claim of a queued run together with a slot on a backend (capacity across
 * instances, fair share, queue time). Queue positions follow the same order (queue-positions.ts).
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
export const HOLDS_SLOT = `status IN (${ACTIVE}) AND backend_id IS NOT NULL`;
/** Runs held per account: fewer comes first in the claim order. */
const HELD_BY_ACCOUNT = `SELECT account_id, COUNT(*) AS n FROM runs WHERE ${HOLDS_SLOT} GROUP BY account_id`;
/** A run waiting for a slot: queued, on no backend. */
export const WAITING = `status = 'queued' AND backend_id IS NULL`;
/** A run failing over: started, lost by its backend, on no backend yet (claimed whatever its age). */
export const FAILING_OVER = `status = 'running' AND backend_id IS NULL`;
/** No live lease on the run at ?. */
const LEASE_FREE = `(lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= ?)`;
/** A waiting run a claim may take: not past its queue time (since ?), and no live lease (at ?). */
const CLAIMABLE = `created_at >= ? AND ${LEASE_FREE}`;

export async function claimNext(db: Knex, request: ClaimRequest): Promise<Run | null> {
  return (await claimMany(db, request, 1))[0] ?? null;
}

/** Up to `max` runs in one transaction, each in the order the ones claimed before it leave. */
export async function claimMany(db: Knex, request: ClaimRequest, max: number): Promise<Run[]> {
  const offers = new Map(request.backends.filter((b) => b.capacity > 0).map((b) => [b.id, b.capacity]));
  if (offers.size === 0 || max < 1) return [];
  // Most wakes (a run finished, a slot freed) find nothing waiting: a read says so without taking
  // the write lock (SQLite) or the backend rows (PostgreSQL) that the claim takes. After a run was
  // queued SQLite goes straight to its lock, one statement sooner to the prompt; PostgreSQL keeps
  // the read, since there every instance is woken by each new run and all but one find it taken.
  // So does a claim right after one that left queued runs waiting (it stopped for want of room):
  // on SQLite this process nearly always is the only one claiming, so they are still there (when
  // another process on the file took them, this claim only waited for the lock to find none).
  const sqlite = dialectOf(db) === 'sqlite';
  const surelyWaiting = sqlite && (request.runQueuedSinceLastClaim === true || (!request.failover && leftWaitingByDb.get(db) === true));
  if (!surelyWaiting && !(await anyWaiting(db, request))) return [];
  const known = knownBackendsOf(db);
  if (sqlite) {
    const outcome = { leftWaiting: false };
    const claimed = await db.transaction((trx) => claimInTransaction(trx, request, offers, 'sqlite', known, max, outcome));
    if (!request.failover) leftWaitingByDb.set(db, outcome.leftWaiting);
    return claimed === 'skipped' ? [] : claimed;
  }
  // Claims on other backends go side by side; when the backends this one could use are all being
  // claimed on, it waits for them (in id order, so two claims never wait on each other).
  const first = await db.transaction((trx) => claimInTransaction(trx, request, offers, 'skip-locked', known, max));
  if (first !== 'skipped') return first;
  const second = await db.transaction((trx) => claimInTransaction(trx, request, offers, 'wait', known, max));
  return second === 'skipped' ? [] : second;
}

/** Whether any run the claim could take is waiting (read from runs_waiting, usually its first entry). */
async function anyWaiting(db: Knex, request: ClaimRequest): Promise<boolean> {
  const rows = await db.raw(`SELECT 1 AS waiting FROM runs WHERE ${waitingOf(request)} AND ${CLAIMABLE} LIMIT 1`, [queuedSinceOf(request), request.now.getTime()]);
  return rawRows(rows).length > 0;
}

type Locking = 'sqlite' | 'skip-locked' | 'wait';

/** The runs a claim takes: queued ones, or those failing over. */
function waitingOf(request: ClaimRequest): string {
  return request.failover ? FAILING_OVER : WAITING;
}

/** A run failing over has spent its queue time long ago: it is claimed whatever its age. */
function queuedSinceOf(request: ClaimRequest): number {
  return request.failover ? 0 : request.queuedSince.getTime();
}

/** A backend an operator drains (or a registration being retired) takes no new run, on any instance, from the moment its row says so. */
const ACCEPTING = `NOT EXISTS (SELECT 1 FROM backends pb WHERE pb.url = dispatch_backends.id AND pb.state <> 'active')`;

/** Per SQLite database, whether this process's last claim of queued runs left some waiting. */
const leftWaitingByDb = new WeakMap<Knex, boolean>();

/** Per database, the backends whose row was seen committed: rows are never deleted, so never inserted again. */
const knownBackendsByDb = new WeakMap<Knex, Set<string>>();

function knownBackendsOf(db: Knex): Set<string> {
  let known = knownBackendsByDb.get(db);
  if (!known) knownBackendsByDb.set(db, (known = new Set()));
  return known;
}

/**
 * The claim; 'skipped' when nothing fit the backends it could lock while others were locked.
 * Statements: lock the backend rows (one, on PostgreSQL); then for each run, read candidates (one
 * per page, usually one; the first also reads the runs each backend holds, and on SQLite the
 * backend rows) and reserve the run (one, noting its backend on PostgreSQL); on SQLite, one note of
 * each backend's last placement before the commit.
 */
async function claimInTransaction(
  trx: Knex.Transaction,
  request: ClaimRequest,
  offers: ReadonlyMap<string, number>,
  locking: Locking,
  knownBackends: Set<string>,
  max: number,
  outcome: { leftWaiting: boolean } = { leftWaiting: false },
): Promise<Run[] | 'skipped'> {
  const ids = [...offers.keys()].sort();
  const unknown = ids.filter((id) => !knownBackends.has(id));
  if (unknown.length > 0) {
    await trx.raw(`INSERT INTO dispatch_backends (id) VALUES ${unknown.map(() => '(?)').join(', ')} ON CONFLICT (id) DO NOTHING`, unknown);
    // Remembered once the row is surely there (its transaction committed).
    void trx.executionPromise.then(() => unknown.forEach((id) => knownBackends.add(id)), () => undefined);
  }
  // The backend rows are the lock every instance's claim takes: PostgreSQL locks them (or skips
  // those another claim holds). SQLite's transaction began IMMEDIATE, holding the database's write
  // lock already: its rows are read with the first page of candidates (one statement less).
  const locked =
    locking === 'sqlite'
      ? null
      : rawRows(await trx.raw(`SELECT ${BACKEND_COLUMNS} FROM dispatch_backends WHERE id IN (${placeholders(ids.length)}) AND ${ACCEPTING} ORDER BY id ${locking === 'skip-locked' ? 'FOR UPDATE SKIP LOCKED' : 'FOR UPDATE'}`, ids));
  const skipped = locked !== null && locked.length < ids.length;
  const claimed: Run[] = [];
  if (locked === null || locked.length > 0) {
    const room: Room = { ids: locked ? locked.map((b) => String(b['id'])) : ids, locked, offers, free: null, drained: false };
    while (claimed.length < max) {
      const run = room.drained ? null : await claimFor(trx, request, room, locking === 'sqlite' ? 'sqlite' : 'postgres');
      if (!run) break;
      claimed.push(run);
      // The slot it took, and the backend now warm for its app version, for the next one.
      room.free = (room.free ?? [])
        .map((b) => (b.id === run.backendId ? { ...b, room: b.room - 1, lastAppVersionId: run.appVersionId, lastPlacedAtMs: request.now.getTime() } : b))
        .filter((b) => b.room > 0);
      if (room.free.length === 0) break;
    }
    // It stopped with runs taken and the order not drained: there are more waiting.
    outcome.leftWaiting = claimed.length > 0 && !room.drained;
  }
  if (locking === 'sqlite') await noteLastPlacements(trx, claimed, request.now.getTime());
  return claimed.length === 0 && skipped ? 'skipped' : claimed;
}

const BACKEND_COLUMNS = 'id, last_app_version_id, last_placed_at';

/** The backends a claim locked (their rows: null on SQLite until the first page), and once read, those with room left (`free`). */
interface Room {
  readonly ids: readonly string[];
  locked: readonly Record<string, unknown>[] | null;
  readonly offers: ReadonlyMap<string, number>;
  free: FreeBackend[] | null;
  /** No waiting run is left to look at. */
  drained: boolean;
}

/** The locked backends with room: their capacity less the runs they hold (of every instance). */
function freeBackends(locked: readonly Record<string, unknown>[], offers: ReadonlyMap<string, number>, held: ReadonlyMap<string, number>): FreeBackend[] {
  const free: FreeBackend[] = [];
  for (const b of [...locked].sort((x, y) => (String(x['id']) < String(y['id']) ? -1 : 1))) {
    const id = String(b['id']);
    const room = (offers.get(id) ?? 0) - (held.get(id) ?? 0);
    const placedAt = b['last_placed_at'];
    if (room > 0) free.push({ id, room, lastAppVersionId: (b['last_app_version_id'] as string | null) ?? null, lastPlacedAtMs: placedAt === null || placedAt === undefined ? null : toMs(placedAt) });
  }
  return free;
}

/** Candidates read per page at first; each further page is twice as long (placement refused them all). */
const FIRST_PAGE = 20;
const LARGEST_PAGE = 640;
/** Fresh reads of the order after losing a candidate to a concurrent claim, before going down the page instead. */
const MAX_REREADS = 3;

/**
 * The first waiting run in fair-share order that placement puts on one of the free backends,
 * however far down the queue it is: candidates come a page at a time (keyset on the order), so
 * runs no free backend can take never hide those behind them.
 */
async function claimFor(trx: Knex.Transaction, request: ClaimRequest, room: Room, dialect: 'sqlite' | 'postgres'): Promise<Run | null> {
  const nowMs = request.now.getTime();
  const lockedIds = room.ids;
  // SQLite: the backends' rows, as JSON, with the first page.
  const backendsJson = room.locked
    ? ''
    : `(SELECT json_group_array(json_object('id', id, 'last_app_version_id', last_app_version_id, 'last_placed_at', last_placed_at)) FROM dispatch_backends WHERE id IN (${placeholders(lockedIds.length)}) AND ${ACCEPTING}) AS backends,`;
  // The runs each locked backend holds, read with the first page (after the lock: no claim on
  // these backends can commit meanwhile). One JSON value, computed once for the statement.
  const heldJson = dialect === 'postgres' ? 'json_object_agg(backend_id, n)' : 'json_group_object(backend_id, n)';
  // Runs the claimer follows that their backend has finished with: they take no room there.
  const released = request.finishedOnBackend ?? [];
  let after: { held: number; createdAt: number; id: string } | null = null;
  let rereads = 0;
  let size = FIRST_PAGE;
  for (;;) {
    const keyset = after ? 'AND (COALESCE(h.n, 0) > ? OR (COALESCE(h.n, 0) = ? AND q.created_at >= ? AND (q.created_at > ? OR q.id > ?)))' : '';
    const page = rawRows(
      await trx.raw(
        `SELECT ${room.free ? 'NULL' : `(SELECT ${heldJson} FROM (SELECT backend_id, COUNT(*) AS n FROM runs WHERE backend_id IN (${placeholders(lockedIds.length)}) AND status IN (${ACTIVE})${released.length > 0 ? ` AND id NOT IN (${placeholders(released.length)})` : ''} GROUP BY backend_id) hb)`} AS held_by_backend,
                ${room.free ? '' : backendsJson} COALESCE(h.n, 0) AS held_by_account, q.*
           FROM runs q LEFT JOIN (${HELD_BY_ACCOUNT}) h ON h.account_id = q.account_id
          WHERE ${waitingOf(request)} AND ${CLAIMABLE} ${keyset}
          ORDER BY COALESCE(h.n, 0), q.created_at, q.id LIMIT ${size}`,
        [
          ...(room.free ? [] : [...lockedIds, ...released, ...(backendsJson ? lockedIds : [])]),
          queuedSinceOf(request),
          nowMs,
          ...(after ? [after.held, after.held, after.createdAt, after.createdAt, after.id] : []),
        ],
      ),
    );
    if (page.length === 0) return null;
    room.locked ??= JSON.parse(String(page[0]?.['backends'] ?? '[]')) as Record<string, unknown>[];
    const free = (room.free ??= freeBackends(room.locked, room.offers, heldByBackend(page[0]?.['held_by_backend'])));
    if (free.length === 0) return null;
    let lost = false;
    for (const row of page) {
      const candidate = toRun(row);
      const backendId = request.place(candidate, free);
      if (backendId === null || !free.some((b) => b.id === backendId)) continue;
      const claimed = await reserve(trx, request, candidate, backendId, dialect);
      if (claimed) {
        // The last waiting run there was: the next claim of this transaction need not look.
        if (page.length < size && row === page[page.length - 1]) room.drained = true;
        return claimed;
      }
      // A claim on another backend took this run meanwhile (PostgreSQL claims side by side), so the
      // page's counts of runs held per account are stale: its account now holds one more. Read the
      // order again (a statement sees what committed before it) rather than go down a stale page,
      // which would hand the busy account a second slot before an idle account's first.
      if (rereads < MAX_REREADS) {
        lost = true;
        break;
      }
    }
    if (lost) {
      rereads += 1;
      after = null;
      size = FIRST_PAGE;
      continue;
    }
    if (page.length < size) return null;
    const last = page[page.length - 1] as Record<string, unknown>;
    after = { held: Number(last['held_by_account']), createdAt: toMs(last['created_at']), id: String(last['id']) };
    size = Math.min(size * 2, LARGEST_PAGE);
  }
}

function heldByBackend(value: unknown): Map<string, number> {
  if (value === null || value === undefined) return new Map();
  const parsed = (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
  return new Map(Object.entries(parsed).map(([id, n]) => [id, Number(n)]));
}

/**
 * Reserves the slot: the run's lease and backend, guarded again (a claim on other backends may
 * have taken the run meanwhile), and on PostgreSQL the backend's last placed app version (warm
 * placement) in the same statement, riding along only when the run was reserved; SQLite notes
 * them once per claim (`noteLastPlacements`).
 */
async function reserve(trx: Knex.Transaction, request: ClaimRequest, candidate: Run, backendId: string, dialect: 'sqlite' | 'postgres'): Promise<Run | null> {
  const nowMs = request.now.getTime();
  const update = `UPDATE runs SET lease_owner = ?, lease_expires_at = ?, backend_id = ?, attempts = attempts + 1
    WHERE id = ? AND ${waitingOf(request)} AND ${LEASE_FREE} RETURNING *`;
  const bindings = [request.owner, request.leaseExpiresAt.getTime(), backendId, candidate.id, nowMs];
  if (dialect === 'postgres') {
    const row = rawRows(
      await trx.raw(
        `WITH claimed AS (${update}),
         noted AS (UPDATE dispatch_backends SET last_app_version_id = ?, last_placed_at = ? WHERE id = ? AND EXISTS (SELECT 1 FROM claimed))
         SELECT * FROM claimed`,
        [...bindings, candidate.appVersionId, nowMs, backendId],
      ),
    )[0];
    return row ? toRun(row) : null;
  }
  const row = rawRows(await trx.raw(update, bindings))[0];
  return row ? toRun(row) : null;
}

/**
 * SQLite: each backend's last placement of the claim, noted once before it commits (the claim
 * itself follows its placements in `Room`, and no other claim reads them before the commit).
 */
async function noteLastPlacements(trx: Knex.Transaction, claimed: readonly Run[], nowMs: number): Promise<void> {
  const last = new Map(claimed.map((run) => [run.backendId as string, run.appVersionId]));
  if (last.size === 0) return;
  await trx.raw(
    `INSERT INTO dispatch_backends (id, last_app_version_id, last_placed_at) VALUES ${[...last].map(() => '(?, ?, ?)').join(', ')}
     ON CONFLICT (id) DO UPDATE SET last_app_version_id = excluded.last_app_version_id, last_placed_at = excluded.last_placed_at`,
    [...last].flatMap(([backendId, appVersionId]) => [backendId, appVersionId, nowMs]),
  );
}
