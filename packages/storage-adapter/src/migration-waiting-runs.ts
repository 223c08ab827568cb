/**
 * Migration 008: the two sets of runs fair share reads, each as a small partial index: the waiting
 * runs (queued, on no backend) in account and age order, and the runs holding a slot by account.
 * Queue positions count ranges of the first and group the second without sorting and without
 * reading the history of finished runs.
 * @module
 */
import type { Knex } from 'knex';
import { sqlStrings } from './columns.js';
import { ACTIVE_STATUSES } from './run-statements.js';

const ACTIVE = sqlStrings(ACTIVE_STATUSES);

export const WAITING_RUNS_MIGRATION = {
  name: '008_waiting_runs',
  async up(db: Knex): Promise<void> {
    await db.raw(`CREATE INDEX runs_waiting ON runs (account_id, created_at, id) WHERE status = 'queued' AND backend_id IS NULL`);
    // The same condition, word for word, as the statements use (SQLite matches partial indexes by their terms).
    await db.raw(`CREATE INDEX runs_holding ON runs (account_id) WHERE status IN (${ACTIVE}) AND backend_id IS NOT NULL`);
  },
  async down(db: Knex): Promise<void> {
    await db.raw('DROP INDEX IF EXISTS runs_holding');
    await db.raw('DROP INDEX IF EXISTS runs_waiting');
  },
};
