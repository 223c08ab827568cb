/**
 * Queue positions: how many waiting runs start before a run in the claim order (claim-statements.ts).
 * @module
 */
import type { Knex } from 'knex';
import type { Run, RunWithQueuePosition } from '@runload/core';
import { HOLDS_SLOT, WAITING } from './claim-statements.js';
import { placeholders, rawRows } from './columns.js';
import { dialectOf } from './open-database.js';
import { toRun } from './run-row.js';
import { selectRuns } from './run-statements.js';

/**
 * For each run, how many waiting runs start before it in the claim order: an account's k-th
 * waiting run (0-based) ranks k plus the runs the account holds on backends; ties by age.
 *
 * Counted per account, never run against run (that grew with the square of the queue). For `me`
 * of rank R, an account a holding h_a runs with w_a waiting has min(w_a, max(0, R - h_a)) runs of
 * lower rank, and its run of rank exactly R (its (R - h_a)-th) starts first when it is older than
 * `me`, i.e. when more than R - h_a of its runs are older. w_a is one pass over the waiting runs
 * (runs_waiting is in account order: no sort), h_a a lookup per account, and the runs older than
 * `me` ranges of runs_waiting (account, then age), counted for its own account and for the
 * accounts with a run of rank R only.
 */
export async function countStartingBefore(db: Knex, runs: readonly Run[]): Promise<number[]> {
  const ids = [...new Set(runs.map((r) => r.id))];
  const rows = rawRows(await db.raw(positionsOf(db, `SELECT id, account_id, created_at FROM runs WHERE id IN (${placeholders(ids.length)}) AND ${WAITING}`, 'SELECT me.id AS id, n FROM counted me'), ids));
  const byId = new Map(rows.map((row) => [String(row['id']), Number(row['n'])]));
  return runs.map((r) => byId.get(r.id) ?? 0);
}

/**
 * The runs named (null for a missing one) with their places in the queue, in one statement. The
 * count over the waiting runs is made only when one of the runs named waits: a poll of a running
 * or finished run reads that run alone.
 */
export async function selectRunsWithPositions(db: Knex, ids: readonly string[]): Promise<(RunWithQueuePosition | null)[]> {
  // PostgreSQL plans a statement at each call, here longer (0.3 ms) than the second round trip a
  // waiting run needs: there, the runs are read first and the waiting ones counted after.
  if (dialectOf(db) === 'postgres') return readThenCount(db, ids);
  const unique = [...new Set(ids)];
  const rows = rawRows(
    await db.raw(
      positionsOf(
        db,
        `SELECT id, account_id, created_at FROM polled WHERE ${WAITING}`,
        'SELECT p.*, c.n AS queue_position FROM polled p LEFT JOIN counted c ON c.id = p.id',
        `polled AS MATERIALIZED (SELECT * FROM runs WHERE id IN (${placeholders(unique.length)})),`,
      ),
      unique,
    ),
  );
  const byId = new Map(
    rows.map((row) => {
      const run = toRun(row);
      const queuePosition = run.status !== 'queued' ? null : run.backendId !== null ? 0 : Number(row['queue_position'] ?? 0);
      return [run.id, { run, queuePosition }] as const;
    }),
  );
  return ids.map((id) => byId.get(id) ?? null);
}

async function readThenCount(db: Knex, ids: readonly string[]): Promise<(RunWithQueuePosition | null)[]> {
  const runs = await selectRuns(db, ids);
  const waiting = runs.filter((r): r is Run => r !== null && r.status === 'queued' && r.backendId === null);
  const counts = waiting.length > 0 ? await countStartingBefore(db, waiting) : [];
  const positions = new Map(waiting.map((r, i) => [r.id, counts[i] ?? 0]));
  return runs.map((run) => run && { run, queuePosition: run.status !== 'queued' ? null : (positions.get(run.id) ?? 0) });
}

/**
 * The statement counting, for each run `waiting` selects (id, account_id, created_at), the waiting
 * runs that start before it (`n` in `counted`), then `select` over it. `before` adds common table
 * expressions the two may use.
 */
function positionsOf(db: Knex, waiting: string, select: string, before = ''): string {
  // SQLite would rather walk the account's unfinished runs (runs_by_account_status), queued ones
  // included; the holding runs are few.
  const holding = dialectOf(db) === 'sqlite' ? 'INDEXED BY runs_holding' : '';
  const olderThanMe = (account: string) =>
    `(SELECT COUNT(*) FROM runs o WHERE o.status = 'queued' AND o.backend_id IS NULL AND o.account_id = ${account}
         AND o.created_at <= me.created_at AND (o.created_at < me.created_at OR o.id < me.id))`;
  // The EXISTS is evaluated once: with none of the runs asked about waiting, nothing is counted.
  return `WITH ${before}
       mine AS MATERIALIZED (${waiting}),
       accounts AS MATERIALIZED (
         SELECT w.account_id AS account_id, w.n AS w,
                (SELECT COUNT(*) FROM runs held ${holding} WHERE held.account_id = w.account_id AND ${HOLDS_SLOT}) AS h
           FROM (SELECT account_id, COUNT(*) AS n FROM runs WHERE ${WAITING} AND EXISTS (SELECT 1 FROM mine) GROUP BY account_id) w),
       ranked AS MATERIALIZED (
         SELECT me.id AS id, me.account_id AS account_id, me.created_at AS created_at, acc.h + ${olderThanMe('me.account_id')} AS r
           FROM mine me CROSS JOIN accounts acc WHERE acc.account_id = me.account_id),
       counted AS MATERIALIZED (
         SELECT me.id AS id,
                (SELECT SUM(CASE WHEN me.r <= a.h THEN 0 WHEN me.r - a.h < a.w THEN me.r - a.h ELSE a.w END
                            + CASE WHEN a.account_id = me.account_id OR me.r < a.h OR me.r - a.h >= a.w THEN 0
                                   WHEN ${olderThanMe('a.account_id')} > me.r - a.h THEN 1 ELSE 0 END)
                   FROM accounts a) AS n
           FROM ranked me)
       ${select}`;
}
