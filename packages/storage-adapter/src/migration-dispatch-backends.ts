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
    // Every claim counts the runs each backend and each account holds (status first: finished
    // runs keep their backend, and there are many of them).
    await db.schema.alterTable('runs', (t) => t.index(['status', 'backend_id', 'account_id', 'created_at', 'id'], 'runs_by_status_backend'));
  },
  async down(db: Knex): Promise<void> {
    await db.schema.alterTable('runs', (t) => t.dropIndex(['status', 'backend_id', 'account_id', 'created_at', 'id'], 'runs_by_status_backend'));
    await db.schema.dropTableIfExists('dispatch_backends');
  },
};
