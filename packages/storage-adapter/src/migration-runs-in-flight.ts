/**
 * Migration 003: how many runs each account has in flight per app version, kept by triggers in
 * the same statement that changes a run. Run admission reads it (the GPU estimate of the runs in
 * flight) on every run creation: counting the runs themselves cost one index entry per queued
 * run, so admission slowed down as the queue grew.
 * @module
 */
import type { Knex } from 'knex';
import { sqlStrings } from './columns.js';
import { dialectOf } from './open-database.js';
import { ACTIVE_STATUSES } from './run-statements.js';

const IN_FLIGHT = `(${sqlStrings(ACTIVE_STATUSES)})`;

const SQLITE_UP = [
  `CREATE TRIGGER runs_in_flight_insert AFTER INSERT ON runs WHEN NEW.status IN ${IN_FLIGHT}
   BEGIN
     INSERT INTO runs_in_flight (account_id, app_version_id, n) VALUES (NEW.account_id, NEW.app_version_id, 1)
       ON CONFLICT (account_id, app_version_id) DO UPDATE SET n = n + 1;
   END`,
  `CREATE TRIGGER runs_in_flight_enter AFTER UPDATE OF status ON runs
     WHEN OLD.status NOT IN ${IN_FLIGHT} AND NEW.status IN ${IN_FLIGHT}
   BEGIN
     INSERT INTO runs_in_flight (account_id, app_version_id, n) VALUES (NEW.account_id, NEW.app_version_id, 1)
       ON CONFLICT (account_id, app_version_id) DO UPDATE SET n = n + 1;
   END`,
  `CREATE TRIGGER runs_in_flight_leave AFTER UPDATE OF status ON runs
     WHEN OLD.status IN ${IN_FLIGHT} AND NEW.status NOT IN ${IN_FLIGHT}
   BEGIN
     UPDATE runs_in_flight SET n = n - 1 WHERE account_id = OLD.account_id AND app_version_id = OLD.app_version_id;
   END`,
  `CREATE TRIGGER runs_in_flight_delete AFTER DELETE ON runs WHEN OLD.status IN ${IN_FLIGHT}
   BEGIN
     UPDATE runs_in_flight SET n = n - 1 WHERE account_id = OLD.account_id AND app_version_id = OLD.app_version_id;
   END`,
];

const POSTGRES_UP = [
  `CREATE FUNCTION runs_in_flight_track() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP <> 'INSERT' AND OLD.status IN ${IN_FLIGHT} AND (TG_OP = 'DELETE' OR NEW.status NOT IN ${IN_FLIGHT}) THEN
       UPDATE runs_in_flight SET n = n - 1 WHERE account_id = OLD.account_id AND app_version_id = OLD.app_version_id;
     END IF;
     IF TG_OP <> 'DELETE' AND NEW.status IN ${IN_FLIGHT} AND (TG_OP = 'INSERT' OR OLD.status NOT IN ${IN_FLIGHT}) THEN
       INSERT INTO runs_in_flight (account_id, app_version_id, n) VALUES (NEW.account_id, NEW.app_version_id, 1)
         ON CONFLICT (account_id, app_version_id) DO UPDATE SET n = runs_in_flight.n + 1;
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER runs_in_flight_track AFTER INSERT OR UPDATE OF status OR DELETE ON runs
     FOR EACH ROW EXECUTE FUNCTION runs_in_flight_track()`,
];

export const RUNS_IN_FLIGHT_MIGRATION = {
  name: '003_runs_in_flight',
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('runs_in_flight', (t) => {
      t.string('account_id', 36).notNullable();
      t.string('app_version_id', 36).notNullable();
      t.integer('n').notNullable();
      t.primary(['account_id', 'app_version_id']);
    });
    for (const sql of dialectOf(db) === 'postgres' ? POSTGRES_UP : SQLITE_UP) await db.raw(sql);
    await db.raw(
      `INSERT INTO runs_in_flight (account_id, app_version_id, n)
       SELECT account_id, app_version_id, COUNT(*) FROM runs WHERE status IN ${IN_FLIGHT} GROUP BY account_id, app_version_id`,
    );
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db) === 'postgres') {
      await db.raw('DROP TRIGGER IF EXISTS runs_in_flight_track ON runs');
      await db.raw('DROP FUNCTION IF EXISTS runs_in_flight_track()');
    } else {
      for (const name of ['insert', 'enter', 'leave', 'delete']) await db.raw(`DROP TRIGGER IF EXISTS runs_in_flight_${name}`);
    }
    await db.schema.dropTableIfExists('runs_in_flight');
  },
};
