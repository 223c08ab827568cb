/**
 * Migration 014: a run records when a claim placed it on a backend (`placed_at`), and on SQLite a
 * trigger notes that placement on the backend's `dispatch_backends` row (warm placement's hint) in
 * the same statement as the claim's reservation, as PostgreSQL's claim already does in one
 * statement. Runs stored before this migration have no placement time.
 * @module
 */
import type { Knex } from 'knex';
import { dialectOf } from './open-database.js';

export const RUNS_PLACED_AT_MIGRATION = {
  name: '014_runs_placed_at',
  // Plain SQL, as for 013: a rebuilt SQLite table would lose the triggers on `runs`.
  async up(db: Knex): Promise<void> {
    await db.raw('ALTER TABLE runs ADD COLUMN placed_at bigint');
    if (dialectOf(db) !== 'sqlite') return;
    await db.raw(
      `CREATE TRIGGER runs_note_placement AFTER UPDATE OF placed_at ON runs
         WHEN NEW.placed_at IS NOT NULL AND NEW.backend_id IS NOT NULL
       BEGIN
         UPDATE dispatch_backends SET last_app_version_id = NEW.app_version_id, last_placed_at = NEW.placed_at WHERE id = NEW.backend_id;
       END`,
    );
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db) === 'sqlite') await db.raw('DROP TRIGGER IF EXISTS runs_note_placement');
    await db.raw('ALTER TABLE runs DROP COLUMN placed_at');
  },
};
