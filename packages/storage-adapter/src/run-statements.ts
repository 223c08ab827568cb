/**
 * The run statements served in batches (see TickBatch): each answers many calls with one
 * statement, and returns its answers in the order of the calls.
 * @module
 */
import type { Knex } from 'knex';
import type { Run } from '@runload/core';
import { placeholders, rawRows } from './columns.js';
import { fromRun, toRun } from './run-row.js';

/** The statuses of a run in flight: it may still cost GPU time. */
export const ACTIVE_STATUSES = ['queued', 'running', 'canceling'] as const;
/** How many of an app version's latest runs make its GPU-time estimate. */
export const ESTIMATE_WINDOW = 20;

export async function selectRuns(db: Knex, ids: readonly string[]): Promise<(Run | null)[]> {
  const unique = [...new Set(ids)];
  const rows = rawRows(await db.raw(`SELECT * FROM runs WHERE id IN (${placeholders(unique.length)})`, unique));
  const byId = new Map(rows.map((row) => [String(row['id']), toRun(row)]));
  return ids.map((id) => byId.get(id) ?? null);
}

export async function insertRuns(db: Knex, runs: readonly Run[]): Promise<void[]> {
  // Rows in (account, app version) order: the in-flight counters they update are then locked in
  // one order by every batch, so two batches never wait on each other in a cycle (PostgreSQL).
  const ordered = [...runs].sort((a, b) => (a.accountId + a.appVersionId < b.accountId + b.appVersionId ? -1 : 1));
  await db('runs').insert(ordered.map(fromRun));
  return runs.map(() => undefined);
}

/**
 * For each account, the estimated GPU-seconds of its runs in flight: per app version, the runs
 * in flight (counted by triggers in `runs_in_flight`) times the mean of the version's latest
 * finished runs. One row per account and version, however long the queue.
 */
export async function estimateInFlight(db: Knex, accountIds: readonly string[]): Promise<number[]> {
  const unique = [...new Set(accountIds)];
  const rows = rawRows(
    await db.raw(
      `SELECT f.account_id AS account_id, f.n AS n,
              (SELECT AVG(recent.gpu_seconds) FROM (
                 SELECT gpu_seconds FROM runs
                  WHERE app_version_id = f.app_version_id AND finished_at IS NOT NULL AND gpu_seconds IS NOT NULL
                  ORDER BY finished_at DESC LIMIT ${ESTIMATE_WINDOW}) recent) AS mean
         FROM runs_in_flight f
        WHERE f.account_id IN (${placeholders(unique.length)}) AND f.n > 0`,
      unique,
    ),
  );
  const totals = new Map<string, number>();
  for (const r of rows) {
    const id = String(r['account_id']);
    totals.set(id, (totals.get(id) ?? 0) + (r['mean'] === null ? 0 : Number(r['mean']) * Number(r['n'])));
  }
  return accountIds.map((id) => totals.get(id) ?? 0);
}

/**
 * For each app version, in the order given, the GPU-seconds one run of it in flight counts for in
 * {@link estimateInFlight}: the mean of its latest finished runs, 0 when it has none (or no such version).
 */
export async function estimateVersions(db: Knex, appVersionIds: readonly string[]): Promise<number[]> {
  const unique = [...new Set(appVersionIds)];
  if (unique.length === 0) return [];
  const rows = rawRows(
    await db.raw(
      `SELECT v.id AS id,
              (SELECT AVG(recent.gpu_seconds) FROM (
                 SELECT gpu_seconds FROM runs
                  WHERE app_version_id = v.id AND finished_at IS NOT NULL AND gpu_seconds IS NOT NULL
                  ORDER BY finished_at DESC LIMIT ${ESTIMATE_WINDOW}) recent) AS mean
         FROM app_versions v
        WHERE v.id IN (${placeholders(unique.length)})`,
      unique,
    ),
  );
  const means = new Map(rows.map((r) => [String(r['id']), r['mean'] === null ? 0 : Number(r['mean'])]));
  return appVersionIds.map((id) => means.get(id) ?? 0);
}
