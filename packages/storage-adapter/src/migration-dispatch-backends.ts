/**
 * Migration 005: the backends claims serialise on. A claim locks the rows of the backends it
 * offers (PostgreSQL skips those another instance holds), counts the runs each holds and reserves
 * a slot in the same transaction, so instances never overfill a backend together. Each row also
 * remembers the app version last placed there, for warm placement.
 * @module
 */
import type { Knex } from 'knex';

export const DISPATCH_BACKENDS_MIGRATION = {
  name: '005_dispatch_backends',
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('dispatch_backends', (t) => {
      t.string('id', 512).primary();
      t.string('last_app_version_id', 36).nullable();
      t.bigInteger('last_placed_at').nullable();
      // Written first by every claim on SQLite, so the claim holds the write lock from its start.
      t.bigInteger('touched_at').nullable();
    });
    // The runs a backend holds are counted on every claim.
    await db.schema.alterTable('runs', (t) => t.index(['backend_id', 'status'], 'runs_by_backend_status'));
  },
  async down(db: Knex): Promise<void> {
    await db.schema.alterTable('runs', (t) => t.dropIndex(['backend_id', 'status'], 'runs_by_backend_status'));
    await db.schema.dropTableIfExists('dispatch_backends');
  },
};
