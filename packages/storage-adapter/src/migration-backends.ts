/**
 * Migration 010: the pool as data. `backends` holds every ComfyUI server of the pool, shared by
 * every instance (runs name their backend by its URL, as `dispatch_backends` does); app versions
 * may require backend labels, which each run copies (placement reads them inside the claim);
 * `attempts` counts a run's dispatches that reached a backend (failover).
 * @module
 */
import type { Knex } from 'knex';

export const BACKENDS_MIGRATION = {
  name: '010_backends',
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('backends', (t) => {
      t.string('id', 36).primary();
      t.string('url', 512).notNullable().unique();
      t.string('source', 16).notNullable();
      t.string('state', 16).notNullable();
      t.text('labels').notNullable();
      t.integer('depth').nullable();
      // Credentials, apart from the URL, never shown.
      t.text('auth').nullable();
      t.boolean('retiring').notNullable().defaultTo(false);
      t.bigInteger('created_at').notNullable();
      t.bigInteger('expires_at').nullable();
      // What the instances last saw of it, written when it changes.
      t.boolean('reachable').nullable();
      t.string('comfyui_version', 64).nullable();
      t.string('capabilities_hash', 64).nullable();
      t.bigInteger('last_seen_at').nullable();
    });
    await db.schema.alterTable('app_versions', (t) => t.text('require_labels').nullable());
    await db.schema.alterTable('runs', (t) => {
      t.text('require_labels').nullable();
      t.integer('attempts').notNullable().defaultTo(0);
    });
  },
  async down(db: Knex): Promise<void> {
    // Plain DROP COLUMN on both databases: knex would rebuild the SQLite tables, which other
    // tables' foreign keys point at.
    for (const [table, column] of [
      ['runs', 'attempts'],
      ['runs', 'require_labels'],
      ['app_versions', 'require_labels'],
    ]) {
      await db.raw(`ALTER TABLE ${table} DROP COLUMN ${column}`);
    }
    await db.schema.dropTableIfExists('backends');
  },
};
