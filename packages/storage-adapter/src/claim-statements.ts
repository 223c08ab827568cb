/**
 * The claim of a queued run together with a slot on a backend (capacity across
 * instances, fair share, queue time). Queue positions follow the same order (queue-positions.ts).
 * @module
 */
import type { Knex } from 'knex';
import type { ClaimRequest, FreeBackend, Run, RunToPlace } from '@runload/core';
import { placeholders, rawRows, sqlStrings, toMs } from './columns.js';
import { dialectOf } from './open-database.js';
import { toRun } from './run-row.js';
import type { VersionWorkflows } from './version-workflows.js';
import { ACTIVE_STATUSES } from './run-statements.js';

const ACTIVE = sqlStrings(ACTIVE_STATUSES);
/** A run that holds a slot on a backend: placed there and not finished. */
export const HOLDS_SLOT = `status IN (${ACTIVE}) AND backend_id IS NOT NULL`;
/** Runs held per account: fewer comes first in the claim order. */
const HELD_BY_ACCOUNT = `SELECT account_id, COUNT(*) AS n FROM runs WHERE ${HOLDS_SLOT} GROUP BY account_id`;
/** A run waiting for a slot: queued, on no backend. */
export const WAITING = `status = 'queued' AND backend_id IS NULL`;
/** A run failing over: started, lost by its backend, on no backend yet (claimed whatever its age). */
export const FAILING_OVER = `status = 'running' AND backend_id IS NULL`;
/** No live lease on the run at ?. */
export const LEASE_FREE = `(lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= ?)`;
/** A waiting run a claim may take: not past its queue time (since ?), and no live lease (at ?). */
const CLAIMABLE = `created_at >= ? AND ${LEASE_FREE}`;

export async function claimNext(db: Knex, request: ClaimRequest, workflows: VersionWorkflows): Promise<Run | null> {
  return (await claimMany(db, request, 1, workflows))[0] ?? null;
}

/**
 * Up to `max` runs, each in the order the ones claimed before it leave. PostgreSQL claims in one
 * transaction that locks the backends' rows; SQLite with one read and one conditional write per
 * run (see `claimOnSqlite`).
 */
export async function claimMany(db: Knex, request: ClaimRequest, max: number, workflows: VersionWorkflows): Promise<Run[]> {
  const offers = new Map(request.backends.filter((b) => b.capacity > 0).map((b) => [b.id, b.capacity]));
  if (offers.size === 0 || max < 1) return [];
  const known = knownBackendsOf(db);
  if (dialectOf(db) === 'sqlite') return claimOnSqlite(db, request, offers, known, max, workflows);
  // Most wakes (a run finished, a slot freed) find nothing waiting: a read says so without taking
  // the backend rows that the claim locks (every instance is woken by each new run, and all but
  // one find it taken).
  if (!(await anyWaiting(db, request))) return [];
  // Claims on other backends go side by side; when the backends this one could use are all being
  // claimed on, it waits for them (in id order, so two claims never wait on each other).
  const first = await db.transaction((trx) => claimInTransaction(trx, request, offers, 'skip-locked', known, max, workflows));
  if (first !== 'skipped') return first;
  const second = await db.transaction((trx) => claimInTransaction(trx, request, offers, 'wait', known, max, workflows));
  return second === 'skipped' ? [] : second;
}

/**
 * SQLite runs one writer at a time, and one statement is atomic: each run is claimed by one read of
 * the order (outside any transaction: WAL gives it a snapshot and it waits for no writer) and one
 * UPDATE whose own condition checks again, at the moment it writes, that the run still waits and
 * that its backend still has room and takes work. A claim that loses the run or the room to
 * another process reads the order again. No transaction holds the write lock across statements,
 * so the other writes of this process (creates, finishes) never wait for a claim's round trips.
 */
async function claimOnSqlite(db: Knex, request: ClaimRequest, offers: ReadonlyMap<string, number>, known: Set<string>, max: number, workflows: VersionWorkflows): Promise<Run[]> {
  const ids = [...offers.keys()].sort();
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    await insertBackendRows(db, unknown);
    unknown.forEach((id) => known.add(id));
  }
  return claimWhileRoom(db, request, { ids, locked: null, offers, free: null, othersRows: [], others: null, drained: false, workflows }, 'sqlite', max);
}

/** The `dispatch_backends` rows of backends no claim has seen yet (a row another claim wrote first is kept). */
function insertBackendRows(db: Knex, ids: readonly string[]): Promise<unknown> {
  return db.raw(`INSERT INTO dispatch_backends (id) VALUES ${ids.map(() => '(?)').join(', ')} ON CONFLICT (id) DO NOTHING`, [...ids]);
}

/** Run after run in the order, each on a backend with room after those before it, up to `max`. */
async function claimWhileRoom(db: Knex, request: ClaimRequest, room: Room, dialect: 'sqlite' | 'postgres', max: number): Promise<Run[]> {
  const claimed: Run[] = [];
  while (claimed.length < max && !room.drained) {
    const run = await claimFor(db, request, room, dialect);
    if (!run) break;
    claimed.push(run);
    room.free = takeSlot(room.free ?? [], run, request.now.getTime());
    if (room.free.length === 0) break;
  }
  return claimed;
}

/** The slot a claimed run took, and its backend now warm for its app version, for the next claim. */
function takeSlot(free: readonly FreeBackend[], run: Run, nowMs: number): FreeBackend[] {
  return free.map((b) => (b.id === run.backendId ? { ...b, room: b.room - 1, lastAppVersionId: run.appVersionId, lastPlacedAtMs: nowMs } : b)).filter((b) => b.room > 0);
}

/** Whether any run the claim could take is waiting (read from runs_waiting, usually its first entry). */
async function anyWaiting(db: Knex, request: ClaimRequest): Promise<boolean> {
  const rows = await db.raw(`SELECT 1 AS waiting FROM runs WHERE ${waitingOf(request)} AND ${CLAIMABLE} LIMIT 1`, [queuedSinceOf(request), request.now.getTime()]);
  return rawRows(rows).length > 0;
}

type Locking = 'skip-locked' | 'wait';

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

/** Per database, the backends whose row was seen committed: rows are never deleted, so never inserted again. */
const knownBackendsByDb = new WeakMap<Knex, Set<string>>();

function knownBackendsOf(db: Knex): Set<string> {
  let known = knownBackendsByDb.get(db);
  if (!known) knownBackendsByDb.set(db, (known = new Set()));
  return known;
}

/**
 * PostgreSQL's claim; 'skipped' when nothing fit the backends it could lock while others were
 * locked. Statements: lock the backend rows (one); then for each run, read candidates (one per
 * page, usually one; the first also reads the runs each backend holds) and reserve the run, noting
 * its backend (one).
 */
async function claimInTransaction(
  trx: Knex.Transaction,
  request: ClaimRequest,
  offers: ReadonlyMap<string, number>,
  locking: Locking,
  knownBackends: Set<string>,
  max: number,
  workflows: VersionWorkflows,
): Promise<Run[] | 'skipped'> {
  const ids = [...offers.keys()].sort();
  const unknown = ids.filter((id) => !knownBackends.has(id));
  if (unknown.length > 0) {
    await insertBackendRows(trx, unknown);
    // Remembered once the row is surely there (its transaction committed).
    void trx.executionPromise.then(() => unknown.forEach((id) => knownBackends.add(id)), () => undefined);
  }
  // The backend rows are the lock every instance's claim takes (or skips those another claim holds).
  const locked = rawRows(
    await trx.raw(`SELECT ${BACKEND_COLUMNS} FROM dispatch_backends WHERE id IN (${placeholders(ids.length)}) AND ${ACCEPTING} ORDER BY id ${locking === 'skip-locked' ? 'FOR UPDATE SKIP LOCKED' : 'FOR UPDATE'}`, ids),
  );
  const skipped = locked.length < ids.length;
  const lockedIds = locked.map((b) => String(b['id']));
  const othersRows = skipped && locking === 'skip-locked' ? await lockedByOthers(trx, ids, lockedIds) : [];
  const room: Room = { ids: lockedIds, locked, offers, free: null, othersRows, others: null, drained: false, workflows };
  const claimed = locked.length > 0 ? await claimWhileRoom(trx, request, room, 'postgres', max) : [];
  return claimed.length === 0 && skipped ? 'skipped' : claimed;
}

const BACKEND_COLUMNS = 'id, last_app_version_id, last_placed_at';

/**
 * The rows of the backends another claim holds locked, read without a lock: placement sees those
 * with room, so that a run whose warm backend is among them is left to that claim (or to this
 * one's second, waiting pass) instead of being put cold on a backend locked here.
 */
async function lockedByOthers(trx: Knex, ids: readonly string[], lockedIds: readonly string[]): Promise<Record<string, unknown>[]> {
  const skippedIds = ids.filter((id) => !lockedIds.includes(id));
  return rawRows(await trx.raw(`SELECT ${BACKEND_COLUMNS} FROM dispatch_backends WHERE id IN (${placeholders(skippedIds.length)}) AND ${ACCEPTING}`, skippedIds));
}

/** The backends a claim may use (their rows: null on SQLite until a page reads them), and once read, those with room left (`free`). */
interface Room {
  readonly ids: readonly string[];
  locked: readonly Record<string, unknown>[] | null;
  readonly offers: ReadonlyMap<string, number>;
  free: FreeBackend[] | null;
  /** The rows of backends another claim holds (PostgreSQL, see `lockedByOthers`). */
  readonly othersRows: readonly Record<string, unknown>[];
  /** Once read, those of them with room: placement may choose one, and the run is then left to that claim. */
  others: FreeBackend[] | null;
  /** No waiting run is left to look at. */
  drained: boolean;
  /** Where the candidates' workflows come from (their versions'), for placement. */
  readonly workflows: VersionWorkflows;
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
async function claimFor(trx: Knex, request: ClaimRequest, room: Room, dialect: 'sqlite' | 'postgres'): Promise<Run | null> {
  const nowMs = request.now.getTime();
  const lockedIds = room.ids;
  // The runs held are counted on the backends other claims hold too (their room, as last committed).
  const countedIds = [...lockedIds, ...room.othersRows.map((b) => String(b['id']))];
  // SQLite: the backends' rows, as JSON, with the first page.
  const backendsJson = room.locked
    ? ''
    : `(SELECT json_group_array(json_object('id', id, 'last_app_version_id', last_app_version_id, 'last_placed_at', last_placed_at)) FROM dispatch_backends WHERE id IN (${placeholders(lockedIds.length)}) AND ${ACCEPTING}) AS backends,`;
  // The runs each backend holds, read with the first page (on PostgreSQL after the lock: no claim
  // on these backends can commit meanwhile). One JSON value, computed once for the statement.
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
        `SELECT ${room.free ? 'NULL' : `(SELECT ${heldJson} FROM (SELECT backend_id, COUNT(*) AS n FROM runs WHERE backend_id IN (${placeholders(countedIds.length)}) AND status IN (${ACTIVE})${released.length > 0 ? ` AND id NOT IN (${placeholders(released.length)})` : ''} GROUP BY backend_id) hb)`} AS held_by_backend,
                ${room.free ? '' : backendsJson} COALESCE(h.n, 0) AS held_by_account, q.*
           FROM runs q LEFT JOIN (${HELD_BY_ACCOUNT}) h ON h.account_id = q.account_id
          WHERE ${waitingOf(request)} AND ${CLAIMABLE} ${keyset}
          ORDER BY COALESCE(h.n, 0), q.created_at, q.id LIMIT ${size}`,
        [
          ...(room.free ? [] : [...countedIds, ...released, ...(backendsJson ? lockedIds : [])]),
          queuedSinceOf(request),
          nowMs,
          ...(after ? [after.held, after.held, after.createdAt, after.createdAt, after.id] : []),
        ],
      ),
    );
    if (page.length === 0) return null;
    room.locked ??= JSON.parse(String(page[0]?.['backends'] ?? '[]')) as Record<string, unknown>[];
    if (!room.free) {
      const held = heldByBackend(page[0]?.['held_by_backend']);
      room.free = freeBackends(room.locked, room.offers, held);
      room.others = freeBackends(room.othersRows, room.offers, held);
    }
    const free = room.free;
    const others = room.others ?? [];
    if (free.length === 0) return null;
    let lost = false;
    // A version is never removed (a foreign key keeps it): an empty workflow lacks nothing, and the
    // dispatch of such a run would fail on its missing version.
    const workflows = await room.workflows.of(trx, page.map((row) => String(row['app_version_id'])));
    for (const row of page) {
      const run = toRun(row);
      const candidate: RunToPlace = { ...run, workflow: workflows.get(run.appVersionId) ?? {} };
      const backendId = request.place(candidate, others.length > 0 ? [...free, ...others] : free);
      if (backendId === null || !free.some((b) => b.id === backendId)) continue;
      const claimed = await reserve(trx, request, candidate, backendId, room.offers.get(backendId) ?? 0, dialect);
      if (claimed) {
        // The last waiting run there was: the next claim of this transaction need not look.
        if (page.length < size && row === page[page.length - 1]) room.drained = true;
        return claimed;
      }
      // A claim on another backend took this run meanwhile (claims go side by side), so the
      // page's counts of runs held per account are stale: its account now holds one more. Read the
      // order again (a statement sees what committed before it) rather than go down a stale page,
      // which would hand the busy account a second slot before an idle account's first. On SQLite
      // the backends' room may be what was lost: it is read again too.
      if (rereads < MAX_REREADS) {
        lost = true;
        if (dialect === 'sqlite') room.locked = room.free = null;
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
 * Reserves the slot: the run's lease and backend, guarded again (another claim may have taken the
 * run meanwhile). On PostgreSQL, whose claim holds the backends' rows, the backend's last placed
 * app version (warm placement) is noted in the same statement, riding along only when the run was
 * reserved. On SQLite, whose claim holds no lock, the same statement checks that the backend still
 * has room and takes work, and a trigger on `placed_at` notes the placement.
 */
async function reserve(trx: Knex, request: ClaimRequest, candidate: Run, backendId: string, capacity: number, dialect: 'sqlite' | 'postgres'): Promise<Run | null> {
  const nowMs = request.now.getTime();
  const waitsForRoom = request.backends.some((b) => b.id === backendId && b.waitsForRoom === true);
  const update = `UPDATE runs SET lease_owner = ?, lease_expires_at = ?, backend_id = ?, attempts = attempts + 1, waits_for_room = ?, placed_at = ?
    WHERE id = ? AND ${waitingOf(request)} AND ${LEASE_FREE}`;
  const bindings = [request.owner, request.leaseExpiresAt.getTime(), backendId, waitsForRoom, nowMs, candidate.id, nowMs];
  if (dialect === 'postgres') {
    const row = rawRows(
      await trx.raw(
        `WITH claimed AS (${update} RETURNING *),
         noted AS (UPDATE dispatch_backends SET last_app_version_id = ?, last_placed_at = ? WHERE id = ? AND EXISTS (SELECT 1 FROM claimed))
         SELECT * FROM claimed`,
        [...bindings, candidate.appVersionId, nowMs, backendId],
      ),
    )[0];
    return row ? toRun(row) : null;
  }
  const released = request.finishedOnBackend ?? [];
  const row = rawRows(
    await trx.raw(
      `${update}
         AND (SELECT COUNT(*) FROM runs h WHERE h.backend_id = ? AND h.status IN (${ACTIVE})${released.length > 0 ? ` AND h.id NOT IN (${placeholders(released.length)})` : ''}) < ?
         AND NOT EXISTS (SELECT 1 FROM backends pb WHERE pb.url = ? AND pb.state <> 'active')
       RETURNING *`,
      [...bindings, backendId, ...released, capacity, backendId],
    ),
  )[0];
  return row ? toRun(row) : null;
}
