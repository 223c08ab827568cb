/**
 * Migration 017: what each backend has executed (its finished runs and their GPU-seconds), kept by
 * triggers in the same statement that finishes, moves or deletes a run. The pool's overview reads
 * it on every `/metrics` scrape and every list of backends; summing the finished runs instead read
 * the whole history each time (2.5 s on SQLite with a million runs). The triggers fire per run: a
 * single statement that wrote a great many finished runs would update its backends' rows as many
 * times in one transaction, slow on PostgreSQL, which keeps each version; runload writes runs one
 * at a time (a bulk import should disable `backend_usage_insert` and count after, as the bench's
 * seeding does).
 * @module
 */
import type { Knex } from 'knex';
import { sqlStrings } from './columns.js';
import { TERMINAL_STATUSES } from '@runload/core';
import { dialectOf } from './open-database.js';

const FINISHED = `(${sqlStrings(TERMINAL_STATUSES)})`;

/** Whether the row `row` (OLD or NEW) counts as a run its backend executed. */
const counted = (row: 'OLD' | 'NEW') => `${row}.backend_id IS NOT NULL AND ${row}.status IN ${FINISHED}`;

const add = (row: 'OLD' | 'NEW', upsertSet: string) =>
  `INSERT INTO backend_usage (backend_id, runs_executed, gpu_seconds) SELECT ${row}.backend_id, 1, COALESCE(${row}.gpu_seconds, 0) WHERE ${counted(row)}
     ON CONFLICT (backend_id) DO UPDATE SET ${upsertSet}`;
const subtract = (row: 'OLD' | 'NEW') =>
  `UPDATE backend_usage SET runs_executed = runs_executed - 1, gpu_seconds = gpu_seconds - COALESCE(${row}.gpu_seconds, 0)
     WHERE backend_id = ${row}.backend_id AND ${counted(row)}`;

const SQLITE_SET = 'runs_executed = runs_executed + 1, gpu_seconds = gpu_seconds + excluded.gpu_seconds';
const POSTGRES_SET = 'runs_executed = backend_usage.runs_executed + 1, gpu_seconds = backend_usage.gpu_seconds + excluded.gpu_seconds';
const COLUMNS = 'status, backend_id, gpu_seconds';

// Each trigger runs only for the statements that finish, move or delete a counted run (WHEN):
// the updates of a run in flight pay one condition.
const SQLITE_UP = [
  `CREATE TRIGGER backend_usage_insert AFTER INSERT ON runs WHEN ${counted('NEW')}
   BEGIN ${add('NEW', SQLITE_SET)}; END`,
  `CREATE TRIGGER backend_usage_update AFTER UPDATE OF ${COLUMNS} ON runs WHEN (${counted('OLD')}) OR (${counted('NEW')})
   BEGIN ${subtract('OLD')}; ${add('NEW', SQLITE_SET)}; END`,
  `CREATE TRIGGER backend_usage_delete AFTER DELETE ON runs WHEN ${counted('OLD')}
   BEGIN ${subtract('OLD')}; END`,
];

const POSTGRES_UP = [
  `CREATE FUNCTION backend_usage_track() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP <> 'INSERT' THEN ${subtract('OLD')}; END IF;
     IF TG_OP <> 'DELETE' THEN ${add('NEW', POSTGRES_SET)}; END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER backend_usage_insert AFTER INSERT ON runs FOR EACH ROW WHEN (${counted('NEW')}) EXECUTE FUNCTION backend_usage_track()`,
  `CREATE TRIGGER backend_usage_update AFTER UPDATE OF ${COLUMNS} ON runs FOR EACH ROW WHEN ((${counted('OLD')}) OR (${counted('NEW')})) EXECUTE FUNCTION backend_usage_track()`,
  `CREATE TRIGGER backend_usage_delete AFTER DELETE ON runs FOR EACH ROW WHEN (${counted('OLD')}) EXECUTE FUNCTION backend_usage_track()`,
];

export const BACKEND_USAGE_MIGRATION = {
  name: '017_backend_usage',
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('backend_usage', (t) => {
      t.string('backend_id', 512).notNullable().primary();
      t.integer('runs_executed').notNullable();
      t.double('gpu_seconds').notNullable();
    });
    for (const sql of dialectOf(db) === 'postgres' ? POSTGRES_UP : SQLITE_UP) await db.raw(sql);
    await countBackendUsage(db);
  },
  async down(db: Knex): Promise<void> {
    for (const name of ['insert', 'update', 'delete']) {
      await db.raw(dialectOf(db) === 'postgres' ? `DROP TRIGGER IF EXISTS backend_usage_${name} ON runs` : `DROP TRIGGER IF EXISTS backend_usage_${name}`);
    }
    if (dialectOf(db) === 'postgres') await db.raw('DROP FUNCTION IF EXISTS backend_usage_track()');
    await db.schema.dropTableIfExists('backend_usage');
  },
};

/**
 * Counts into the empty `backend_usage` what each backend has executed, from the runs themselves:
 * what migration 017 does for the runs before it, and what a bulk import of finished runs does
 * after writing them with `backend_usage_insert` turned off.
 */
export async function countBackendUsage(db: Knex): Promise<void> {
  await db.raw(
    `INSERT INTO backend_usage (backend_id, runs_executed, gpu_seconds)
     SELECT backend_id, COUNT(*), COALESCE(SUM(gpu_seconds), 0) FROM runs WHERE backend_id IS NOT NULL AND status IN ${FINISHED} GROUP BY backend_id`,
  );
}
