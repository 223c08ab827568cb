/**
 * Migration 009, the admin API: admin tokens (stored like API keys, with their scopes and last
 * use) and the audit trail of changes, read newest first.
 * @module
 */
import type { Knex } from 'knex';

export const ADMIN_MIGRATION = {
  name: '009_admin_tokens_and_audit',
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('admin_tokens', (t) => {
      t.string('id', 36).primary();
      t.text('name').notNullable();
      t.text('scopes').notNullable();
      t.string('prefix', 16).notNullable().unique();
      t.string('secret_hash', 64).notNullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('last_used_at').nullable();
      t.bigInteger('revoked_at').nullable();
    });
    await db.schema.createTable('audit_log', (t) => {
      t.string('id', 36).primary();
      t.bigInteger('at').notNullable();
      t.string('actor', 64).notNullable();
      t.string('action', 64).notNullable();
      t.text('target').notNullable();
      t.string('request_id', 128).nullable();
      t.index(['at', 'id'], 'audit_log_by_time');
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists('audit_log');
    await db.schema.dropTableIfExists('admin_tokens');
  },
};
