/**
 * Queue positions: how many waiting runs start before a run in the claim order (claim-statements.ts).
 * @module
 */
import type { Knex } from 'knex';
import { isWaiting, placeInQueue, type Run, type RunWithQueuePosition } from '@runload/core';
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
  const unique = [...new Map(runs.map((r) => [r.id, r])).values()];
  const rows = rawRows(
    await db.raw(
      `WITH ${accountsOfWaitingRuns(db)},
       ranked AS MATERIALIZED (
         SELECT me.id AS id, me.account_id AS account_id, me.created_at AS created_at, mine.h + ${olderThanMe('me.account_id')} AS r
           FROM runs me JOIN accounts mine ON mine.account_id = me.account_id
          WHERE me.id IN (${placeholders(unique.length)}) AND me.status = 'queued' AND me.backend_id IS NULL)
       SELECT me.id AS id, ${PLACE_OF_ME} AS n FROM ranked me`,
      unique.map((r) => r.id),
    ),
  );
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
  // The counts are made only when one of the runs polled waits (the EXISTS is evaluated once, and
  // the join is taken from the waiting runs polled): a poll of a running or finished run reads it alone.
  const rows = rawRows(
    await db.raw(
      `WITH polled AS MATERIALIZED (SELECT * FROM runs WHERE id IN (${placeholders(unique.length)})),
       waiting AS MATERIALIZED (SELECT id, account_id, created_at FROM polled WHERE ${WAITING}),
       ${accountsOfWaitingRuns(db, 'AND EXISTS (SELECT 1 FROM waiting)')},
       ranked AS MATERIALIZED (
         SELECT me.id AS id, me.account_id AS account_id, me.created_at AS created_at, mine.h + ${olderThanMe('me.account_id')} AS r
           FROM waiting me CROSS JOIN accounts mine WHERE mine.account_id = me.account_id)
       SELECT p.*, (SELECT ${PLACE_OF_ME} FROM ranked me WHERE me.id = p.id) AS queue_position FROM polled p`,
      unique,
    ),
  );
  const byId = new Map(
    rows.map((row) => {
      const run = toRun(row);
      const counted = row['queue_position'];
      return [run.id, { run, queuePosition: placeInQueue(run, counted === null || counted === undefined ? undefined : Number(counted)) }] as const;
    }),
  );
  return ids.map((id) => byId.get(id) ?? null);
}

async function readThenCount(db: Knex, ids: readonly string[]): Promise<(RunWithQueuePosition | null)[]> {
  const runs = await selectRuns(db, ids);
  const waiting = runs.filter((r): r is Run => r !== null && isWaiting(r));
  const counts = waiting.length > 0 ? await countStartingBefore(db, waiting) : [];
  const positions = new Map(waiting.map((r, i) => [r.id, counts[i]]));
  return runs.map((run) => run && { run, queuePosition: placeInQueue(run, positions.get(run.id)) });
}

/** Waiting runs of account `account` older than `me` (its runs_waiting range). */
function olderThanMe(account: string): string {
  return `(SELECT COUNT(*) FROM runs o WHERE o.status = 'queued' AND o.backend_id IS NULL AND o.account_id = ${account}
         AND o.created_at <= me.created_at AND (o.created_at < me.created_at OR o.id < me.id))`;
}

/** `accounts`: per account with waiting runs, how many wait (w) and how many hold a slot (h). */
function accountsOfWaitingRuns(db: Knex, condition = ''): string {
  // SQLite would rather walk the account's unfinished runs (runs_by_account_status), queued ones
  // included; the holding runs are few.
  const holding = dialectOf(db) === 'sqlite' ? 'INDEXED BY runs_holding' : '';
  return `accounts AS MATERIALIZED (
         SELECT w.account_id AS account_id, w.n AS w,
                (SELECT COUNT(*) FROM runs held ${holding} WHERE held.account_id = w.account_id AND ${HOLDS_SLOT}) AS h
           FROM (SELECT account_id, COUNT(*) AS n FROM runs WHERE ${WAITING} ${condition} GROUP BY account_id) w)`;
}

/** For the ranked run `me` (rank r), the waiting runs that start before it, summed over `accounts`. */
const PLACE_OF_ME = `(SELECT SUM(CASE WHEN me.r <= a.h THEN 0 WHEN me.r - a.h < a.w THEN me.r - a.h ELSE a.w END
                          + CASE WHEN a.account_id = me.account_id OR me.r < a.h OR me.r - a.h >= a.w THEN 0
                                 WHEN ${olderThanMe('a.account_id')} > me.r - a.h THEN 1 ELSE 0 END)
                 FROM accounts a)`;
