/**
 * Migration 015: a run no longer keeps its own copy of its workflow. The copy was its app
 * version's, which never changes and is never removed; SQLite rewrote it with the whole row at
 * every change of the run (claim, start, progress, finish) and every poll carried it. Undoing the
 * migration fills the column again from the versions.
 * @module
 */
import type { Knex } from 'knex';

export const RUNS_WITHOUT_WORKFLOW_MIGRATION = {
  name: '015_runs_without_workflow',
  // Plain SQL, as for 013 and 014: a rebuilt SQLite table would lose the triggers on `runs`.
  async up(db: Knex): Promise<void> {
    await db.raw('ALTER TABLE runs DROP COLUMN workflow');
  },
  async down(db: Knex): Promise<void> {
    await db.raw(`ALTER TABLE runs ADD COLUMN workflow text NOT NULL DEFAULT '{}'`);
    await db.raw('UPDATE runs SET workflow = (SELECT v.workflow FROM app_versions v WHERE v.id = runs.app_version_id)');
  },
};
