/**
 * Migration 007: assets know their origin (upload or run output) and when they expire, for the
 * listing filters and retention. Outputs already stored are found through the runs that name
 * them; every asset stored before this migration is kept until deleted (expires_at null).
 * `blob_locks` holds one row per sha256 whose write locks serialise a new record of those bytes
 * with the sweep's removal of them; `maintenance_leases` lets one instance at a time sweep.
 * @module
 */
import type { Knex } from 'knex';

export const ASSETS_RETENTION_MIGRATION = {
  name: '007_assets_origin_and_expiry',
  async up(db: Knex): Promise<void> {
    await db.schema.alterTable('assets', (t) => {
      t.string('origin', 8).notNullable().defaultTo('upload');
      t.bigInteger('expires_at').nullable();
      t.index(['account_id', 'created_at', 'id'], 'assets_by_account');
      t.index(['expires_at'], 'assets_by_expiry');
    });
    await db.schema.createTable('blob_locks', (t) => {
      t.string('sha256', 64).primary();
      t.bigInteger('touched_at').notNullable();
    });
    await db.schema.createTable('maintenance_leases', (t) => {
      t.string('name', 64).primary();
      t.string('owner', 128).notNullable();
      t.bigInteger('expires_at').notNullable();
    });
    const rows = await db('runs').select('outputs').whereNot('outputs', '[]');
    const outputIds = rows.flatMap((r: { outputs: string }) => (JSON.parse(r.outputs) as { assetId: string }[]).map((o) => o.assetId));
    for (let i = 0; i < outputIds.length; i += 500) await db('assets').whereIn('id', outputIds.slice(i, i + 500)).update({ origin: 'output' });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists('maintenance_leases');
    await db.schema.dropTableIfExists('blob_locks');
    await db.schema.alterTable('assets', (t) => {
      t.dropIndex(['expires_at'], 'assets_by_expiry');
      t.dropIndex(['account_id', 'created_at', 'id'], 'assets_by_account');
      t.dropColumn('expires_at');
      t.dropColumn('origin');
    });
  },
};
