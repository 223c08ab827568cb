/**
 * Migration 006, integrations: idempotency keys, the webhook subscription of
 * a run, the webhook outbox with its triggers, each account's signing secret, and the slots of
 * the live event streams.
 *
 * The outbox is written by triggers on `runs`: the event row is inserted by the very statement
 * that changes the run's status, whoever issues it (dispatcher, cancel, expiry, any instance),
 * so an event is never lost nor written for a change that did not happen.
 * @module
 */
import type { Knex } from 'knex';
import { dialectOf } from './open-database.js';

/** The event a status reports: `running` → `run.started`, a terminal one → `run.<status>`. */
const EVENT = `CASE NEW.status WHEN 'running' THEN 'run.started' ELSE 'run.' || NEW.status END`;
const REPORTED = `('running', 'succeeded', 'failed', 'canceled', 'expired')`;
/** Stable id per run and event: `msg_<run id without dashes>_<event>`. */
const EVENT_ID = `'msg_' || REPLACE(NEW.id, '-', '') || '_' || CASE NEW.status WHEN 'running' THEN 'started' ELSE NEW.status END`;
const SNAPSHOT_FIELDS = ['id', 'account_id', 'app_version_id', 'status', 'created_at', 'started_at', 'finished_at', 'inputs', 'progress', 'outputs', 'error', 'metrics', 'webhook_url', 'webhook_events'];

function snapshot(fn: string): string {
  return `${fn}(${SNAPSHOT_FIELDS.map((f) => `'${f}', NEW.${f}`).join(', ')})`;
}

const SQLITE_NOW = `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`;
const PG_NOW = `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`;

function insertEvent(now: string, json: string, event = EVENT, id = EVENT_ID, occurred = `CASE NEW.status WHEN 'running' THEN NEW.started_at ELSE NEW.finished_at END`): string {
  return `INSERT INTO webhook_outbox (id, account_id, run_id, event_type, url, occurred_at, run_snapshot, state, attempts, next_attempt_at, created_at)
     VALUES (${id}, NEW.account_id, NEW.id, ${event}, NEW.webhook_url, COALESCE(${occurred}, ${now}), ${json}, 'pending', 0, 0, ${now})`;
}

/**
 * A run quick enough to finish before it was seen running goes from `queued` straight to its end
 * with `started_at` set: it did start, so `run.started` is reported too (before the end).
 */
const SKIPPED_START = `NEW.webhook_url IS NOT NULL AND OLD.status = 'queued' AND NEW.status IN ('succeeded', 'failed', 'canceled', 'canceling')
      AND NEW.started_at IS NOT NULL AND instr(NEW.webhook_events, ',run.started,') > 0`;
function insertStarted(now: string, json: string): string {
  return insertEvent(now, json, `'run.started'`, `'msg_' || REPLACE(NEW.id, '-', '') || '_started'`, 'NEW.started_at');
}

const SQLITE_UP = [
  `CREATE TRIGGER webhook_outbox_on_skipped_start AFTER UPDATE OF status ON runs WHEN ${SKIPPED_START}
   BEGIN
     ${insertStarted(SQLITE_NOW, snapshot('json_object')).replace('INSERT INTO', 'INSERT OR IGNORE INTO')};
   END`,
  `CREATE TRIGGER webhook_outbox_on_status AFTER UPDATE OF status ON runs
     WHEN NEW.webhook_url IS NOT NULL AND OLD.status <> NEW.status AND NEW.status IN ${REPORTED}
      AND instr(NEW.webhook_events, ',' || ${EVENT} || ',') > 0
   BEGIN
     ${insertEvent(SQLITE_NOW, snapshot('json_object')).replace('INSERT INTO', 'INSERT OR IGNORE INTO')};
   END`,
];

const POSTGRES_UP = [
  `CREATE FUNCTION webhook_outbox_on_status() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${SKIPPED_START.replace("instr(NEW.webhook_events, ',run.started,') > 0", "position(',run.started,' in NEW.webhook_events) > 0")} THEN
       ${insertStarted(PG_NOW, `${snapshot('json_build_object')}::text`)}
       ON CONFLICT (id) DO NOTHING;
     END IF;
     IF NEW.webhook_url IS NOT NULL AND OLD.status <> NEW.status AND NEW.status IN ${REPORTED}
        AND position(',' || ${EVENT} || ',' in NEW.webhook_events) > 0 THEN
       ${insertEvent(PG_NOW, `${snapshot('json_build_object')}::text`)}
       ON CONFLICT (id) DO NOTHING;
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER webhook_outbox_on_status AFTER UPDATE OF status ON runs
     FOR EACH ROW EXECUTE FUNCTION webhook_outbox_on_status()`,
];

export const INTEGRATIONS_MIGRATION = {
  name: '006_integrations',
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('idempotency_keys', (t) => {
      t.string('account_id', 36).notNullable();
      t.string('key', 255).notNullable();
      t.string('fingerprint', 128).notNullable();
      t.string('token', 36).notNullable();
      /** null while the first request is being processed. */
      t.text('response').nullable();
      t.bigInteger('claim_until').notNullable();
      t.bigInteger('expires_at').notNullable();
      t.primary(['account_id', 'key']);
      t.index(['expires_at'], 'idempotency_keys_by_expiry');
    });
    await db.schema.alterTable('runs', (t) => {
      t.text('webhook_url').nullable();
      t.text('webhook_events').nullable();
    });
    await db.schema.createTable('webhook_outbox', (t) => {
      t.string('id', 64).primary();
      t.string('account_id', 36).notNullable();
      t.string('run_id', 36).notNullable();
      t.string('event_type', 32).notNullable();
      t.text('url').notNullable();
      t.bigInteger('occurred_at').notNullable();
      t.text('run_snapshot').notNullable();
      t.string('state', 16).notNullable();
      t.integer('attempts').notNullable();
      t.bigInteger('next_attempt_at').notNullable();
      t.string('lease_owner', 128).nullable();
      t.bigInteger('lease_expires_at').nullable();
      t.text('last_error').nullable();
      t.bigInteger('created_at').notNullable();
      /** When it was delivered or given up. */
      t.bigInteger('settled_at').nullable();
      t.index(['state', 'next_attempt_at'], 'webhook_outbox_due');
      t.index(['settled_at'], 'webhook_outbox_by_settled');
      t.index(['run_id'], 'webhook_outbox_by_run');
    });
    await db.schema.createTable('webhook_secrets', (t) => {
      t.string('account_id', 36).primary();
      t.text('secret').notNullable();
      t.bigInteger('created_at').notNullable();
    });
    await db.schema.createTable('event_stream_slots', (t) => {
      t.string('account_id', 36).notNullable();
      t.integer('slot').notNullable();
      t.string('holder', 64).notNullable();
      t.bigInteger('expires_at').notNullable();
      t.primary(['account_id', 'slot']);
      t.index(['holder'], 'event_stream_slots_by_holder');
    });
    for (const sql of dialectOf(db) === 'postgres' ? POSTGRES_UP : SQLITE_UP) await db.raw(sql);
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db) === 'postgres') {
      await db.raw('DROP TRIGGER IF EXISTS webhook_outbox_on_status ON runs');
      await db.raw('DROP FUNCTION IF EXISTS webhook_outbox_on_status()');
    } else {
      await db.raw('DROP TRIGGER IF EXISTS webhook_outbox_on_status');
      await db.raw('DROP TRIGGER IF EXISTS webhook_outbox_on_skipped_start');
    }
    for (const table of ['event_stream_slots', 'webhook_secrets', 'webhook_outbox', 'idempotency_keys']) await db.schema.dropTableIfExists(table);
    // Plain DROP COLUMN (SQLite 3.35+): knex would rebuild the SQLite table and lose the triggers of 003.
    for (const column of ['webhook_url', 'webhook_events']) await db.raw(`ALTER TABLE runs DROP COLUMN ${column}`);
  },
};
