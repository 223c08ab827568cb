/**
 * Migration 012: an asset record can be pending, written before its bytes are committed and
 * hidden until they are. A process killed in between leaves a pending record, which a start
 * repairs (its bytes are there) or removes (they are not); never a listed asset without bytes.
 * Every record stored before this migration has its bytes: not pending.
 * @module
 */
import type { Knex } from 'knex';

export const ASSETS_PENDING_MIGRATION = {
  name: '012_assets_pending',
  async up(db: Knex): Promise<void> {
    await db.schema.alterTable('assets', (t) => {
      t.boolean('pending').notNullable().defaultTo(false);
      t.index(['pending', 'created_at'], 'assets_pending');
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.alterTable('assets', (t) => {
      t.dropIndex(['pending', 'created_at'], 'assets_pending');
      t.dropColumn('pending');
    });
  },
};
