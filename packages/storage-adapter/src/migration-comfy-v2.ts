/**
 * Migration 011, for the Comfy API v2: assets keep the BLAKE3 of their bytes beside the SHA-256
 * (the v2 names content by it; an index finds an account's bytes by it), and app versions made
 * for a submitted graph carry that graph's hash, unique, so every instance finds the one version
 * of a graph. Assets stored before keep a null BLAKE3 until the server's backfill reads their
 * bytes (a migration cannot reach an object store).
 * @module
 */
import type { Knex } from 'knex';

export const COMFY_V2_MIGRATION = {
  name: '011_comfy_v2_hashes',
  async up(db: Knex): Promise<void> {
    await db.schema.alterTable('assets', (t) => {
      t.string('blake3', 64).nullable();
      t.index(['account_id', 'blake3'], 'assets_by_blake3');
    });
    await db.schema.alterTable('app_versions', (t) => {
      t.string('graph_hash', 64).nullable();
      t.unique(['graph_hash'], { indexName: 'app_versions_by_graph' });
    });
  },
  async down(db: Knex): Promise<void> {
    // Plain DROP COLUMN: knex would rebuild the tables on SQLite, which the runs' foreign keys forbid.
    await db.schema.alterTable('app_versions', (t) => t.dropUnique(['graph_hash'], 'app_versions_by_graph'));
    await db.raw('ALTER TABLE app_versions DROP COLUMN graph_hash');
    await db.schema.alterTable('assets', (t) => t.dropIndex(['account_id', 'blake3'], 'assets_by_blake3'));
    await db.raw('ALTER TABLE assets DROP COLUMN blake3');
  },
};
