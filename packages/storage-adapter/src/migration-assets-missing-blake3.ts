/**
 * Migration 016: a partial index of the assets whose BLAKE3 is not known yet, in SHA-256 order.
 * The server's backfill walks them in that order at every start; without the index each of its
 * batches scanned the whole assets table, and on a database where every hash is known the walk
 * now reads an empty index instead of every asset.
 * @module
 */
import type { Knex } from 'knex';

export const ASSETS_MISSING_BLAKE3_MIGRATION = {
  name: '016_assets_missing_blake3',
  async up(db: Knex): Promise<void> {
    await db.raw('CREATE INDEX assets_missing_blake3 ON assets (sha256) WHERE blake3 IS NULL');
  },
  async down(db: Knex): Promise<void> {
    await db.raw('DROP INDEX assets_missing_blake3');
  },
};
