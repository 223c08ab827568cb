/**
 * Versioned migrations as code, so they run the same from source and from dist, on SQLite and
 * PostgreSQL. Timestamps are epoch milliseconds (bigint): exact ordering on both databases.
 * @module
 */
import type { Knex } from 'knex';
import { ASSETS_RETENTION_MIGRATION } from './migration-assets-retention.js';
import { DISPATCH_BACKENDS_MIGRATION } from './migration-dispatch-backends.js';
import { GPU_USAGE_MONTHLY_MIGRATION } from './migration-gpu-usage-monthly.js';
import { RUNS_IN_FLIGHT_MIGRATION } from './migration-runs-in-flight.js';
import { INTEGRATIONS_MIGRATION } from './migration-integrations.js';
import { WAITING_RUNS_MIGRATION } from './migration-waiting-runs.js';
import { BACKENDS_MIGRATION } from './migration-backends.js';
import { ADMIN_MIGRATION } from './migration-admin.js';
import { ASSETS_PENDING_MIGRATION } from './migration-assets-pending.js';
import { COMFY_V2_MIGRATION } from './migration-comfy-v2.js';
import { RUNS_WAITING_FOR_ROOM_MIGRATION } from './migration-runs-waiting-for-room.js';
import { RUNS_PLACED_AT_MIGRATION } from './migration-runs-placed-at.js';
import { RUNS_WITHOUT_WORKFLOW_MIGRATION } from './migration-runs-without-workflow.js';
import { ASSETS_MISSING_BLAKE3_MIGRATION } from './migration-assets-missing-blake3.js';
import { BACKEND_USAGE_MIGRATION } from './migration-backend-usage.js';
import { RUNS_BY_ACCOUNT_FINISHED_MIGRATION } from './migration-runs-by-account-finished.js';
import { OUTPUTS_REVEALED_MIGRATION } from './migration-outputs-revealed.js';
import { CHARGE_WITH_RUN_MIGRATION } from './migration-charge-with-run.js';

interface Migration {
  readonly name: string;
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

const MIGRATIONS: readonly Migration[] = [
  {
    name: '001_initial',
    async up(db) {
      await db.schema.createTable('accounts', (t) => {
        t.string('id', 36).primary();
        t.text('name').notNullable();
        t.string('tier', 16).notNullable();
        t.string('status', 16).notNullable();
        t.bigInteger('created_at').notNullable();
      });
      await db.schema.createTable('api_keys', (t) => {
        t.string('id', 36).primary();
        t.string('account_id', 36).notNullable().references('id').inTable('accounts');
        t.string('prefix', 16).notNullable().unique();
        t.string('secret_hash', 64).notNullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('revoked_at').nullable();
      });
      await db.schema.createTable('app_versions', (t) => {
        t.string('id', 36).primary();
        t.string('app_id', 36).notNullable().index();
        t.text('name').notNullable();
        t.text('workflow').notNullable();
        t.text('inputs').notNullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('deleted_at').nullable();
      });
      await db.schema.createTable('assets', (t) => {
        t.string('id', 36).primary();
        t.string('account_id', 36).notNullable().references('id').inTable('accounts');
        t.text('filename').notNullable();
        t.string('content_type', 127).notNullable();
        t.bigInteger('size').notNullable();
        t.string('sha256', 64).notNullable().index();
        t.bigInteger('created_at').notNullable();
      });
      await db.schema.createTable('runs', (t) => {
        t.string('id', 36).primary();
        t.string('account_id', 36).notNullable().references('id').inTable('accounts');
        t.string('app_version_id', 36).notNullable().references('id').inTable('app_versions');
        t.string('status', 16).notNullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('started_at').nullable();
        t.bigInteger('finished_at').nullable();
        t.text('inputs').notNullable();
        t.text('workflow').notNullable();
        t.text('progress').nullable();
        t.text('outputs').notNullable();
        t.text('error').nullable();
        t.text('metrics').notNullable();
        t.double('gpu_seconds').nullable();
        t.string('backend_id', 512).nullable();
        t.string('lease_owner', 128).nullable();
        t.bigInteger('lease_expires_at').nullable();
        t.boolean('cancel_requested').notNullable().defaultTo(false);
        t.index(['account_id', 'created_at', 'id'], 'runs_by_account');
        t.index(['status', 'created_at', 'id'], 'runs_by_status');
        t.index(['app_version_id', 'finished_at'], 'runs_by_app_version_finished');
        t.index(['lease_owner'], 'runs_by_lease_owner');
      });
      await db.schema.createTable('gpu_charges', (t) => {
        t.string('run_id', 36).primary();
        t.string('account_id', 36).notNullable();
        t.double('seconds').notNullable();
        t.bigInteger('charged_at').notNullable();
        t.index(['account_id', 'charged_at'], 'gpu_charges_by_account');
      });
    },
    async down(db) {
      for (const table of ['gpu_charges', 'runs', 'assets', 'app_versions', 'api_keys', 'accounts']) await db.schema.dropTableIfExists(table);
    },
  },
  {
    // countActive and estimateInFlightGpuSeconds read an account's unfinished runs: without this
    // they walk the account's whole history.
    name: '002_runs_by_account_status',
    async up(db) {
      await db.schema.alterTable('runs', (t) => t.index(['account_id', 'status'], 'runs_by_account_status'));
    },
    async down(db) {
      await db.schema.alterTable('runs', (t) => t.dropIndex(['account_id', 'status'], 'runs_by_account_status'));
    },
  },
  RUNS_IN_FLIGHT_MIGRATION,
  GPU_USAGE_MONTHLY_MIGRATION,
  DISPATCH_BACKENDS_MIGRATION,
  INTEGRATIONS_MIGRATION,
  ASSETS_RETENTION_MIGRATION,
  WAITING_RUNS_MIGRATION,
  BACKENDS_MIGRATION,
  ADMIN_MIGRATION,
  ASSETS_PENDING_MIGRATION,
  COMFY_V2_MIGRATION,
  RUNS_WAITING_FOR_ROOM_MIGRATION,
  RUNS_PLACED_AT_MIGRATION,
  RUNS_WITHOUT_WORKFLOW_MIGRATION,
  ASSETS_MISSING_BLAKE3_MIGRATION,
  BACKEND_USAGE_MIGRATION,
  RUNS_BY_ACCOUNT_FINISHED_MIGRATION,
  OUTPUTS_REVEALED_MIGRATION,
  CHARGE_WITH_RUN_MIGRATION,
];

class CodeMigrationSource implements Knex.MigrationSource<Migration> {
  async getMigrations(): Promise<Migration[]> {
    return [...MIGRATIONS];
  }

  getMigrationName(migration: Migration): string {
    return migration.name;
  }

  async getMigration(migration: Migration): Promise<Knex.Migration> {
    return { up: (db: Knex) => migration.up(db), down: (db: Knex) => migration.down(db) };
  }
}

const CONFIG = { migrationSource: new CodeMigrationSource(), tableName: 'runload_migrations' };

/** Brings the schema up to date; a no-op when it already is. */
export async function migrate(db: Knex): Promise<void> {
  await db.migrate.latest(CONFIG);
}

/** Undoes the latest migration (upgrade tests start from the schema before it). */
export async function undoLatestMigration(db: Knex): Promise<void> {
  await db.migrate.down(CONFIG);
}

/** Undoes the latest migrations until `name` is the latest applied (upgrade tests start from there). */
export async function undoMigrationsAfter(db: Knex, name: string): Promise<void> {
  for (;;) {
    const [completed] = (await db.migrate.list(CONFIG)) as [{ name: string }[], unknown];
    const latest = completed[completed.length - 1]?.name;
    if (latest === undefined || latest === name) return;
    await db.migrate.down(CONFIG);
  }
}
