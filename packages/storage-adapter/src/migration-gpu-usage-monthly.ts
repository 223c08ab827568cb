/**
 * Migration 004: GPU seconds charged per account and calendar month (UTC), kept by a trigger in
 * the statement that records a charge. Run admission asks for the current month's use on every
 * run creation; summing the month's charges cost one row per run the account finished this month.
 * The charges stay the ledger; this is their running total.
 * @module
 */
import type { Knex } from 'knex';
import { dialectOf } from './open-database.js';

const SQLITE_MONTH = (column: string) => `strftime('%Y-%m', ${column} / 1000, 'unixepoch')`;
const POSTGRES_MONTH = (column: string) => `to_char(to_timestamp(${column} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM')`;

const SQLITE_UP = [
  `CREATE TRIGGER gpu_usage_monthly_add AFTER INSERT ON gpu_charges
   BEGIN
     INSERT INTO gpu_usage_monthly (account_id, month, seconds) VALUES (NEW.account_id, ${SQLITE_MONTH('NEW.charged_at')}, NEW.seconds)
       ON CONFLICT (account_id, month) DO UPDATE SET seconds = seconds + excluded.seconds;
   END`,
  `CREATE TRIGGER gpu_usage_monthly_remove AFTER DELETE ON gpu_charges
   BEGIN
     UPDATE gpu_usage_monthly SET seconds = seconds - OLD.seconds WHERE account_id = OLD.account_id AND month = ${SQLITE_MONTH('OLD.charged_at')};
   END`,
];

const POSTGRES_UP = [
  `CREATE FUNCTION gpu_usage_monthly_track() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' THEN
       INSERT INTO gpu_usage_monthly (account_id, month, seconds) VALUES (NEW.account_id, ${POSTGRES_MONTH('NEW.charged_at')}, NEW.seconds)
         ON CONFLICT (account_id, month) DO UPDATE SET seconds = gpu_usage_monthly.seconds + excluded.seconds;
     ELSE
       UPDATE gpu_usage_monthly SET seconds = seconds - OLD.seconds WHERE account_id = OLD.account_id AND month = ${POSTGRES_MONTH('OLD.charged_at')};
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER gpu_usage_monthly_track AFTER INSERT OR DELETE ON gpu_charges FOR EACH ROW EXECUTE FUNCTION gpu_usage_monthly_track()`,
];

/** `YYYY-MM` when [from, to) is exactly one calendar month (UTC), else null. */
export function calendarMonthOf(from: Date, to: Date): string | null {
  const start = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1);
  const next = Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1);
  if (from.getTime() !== start || to.getTime() !== next) return null;
  return from.toISOString().slice(0, 7);
}

export const GPU_USAGE_MONTHLY_MIGRATION = {
  name: '004_gpu_usage_monthly',
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('gpu_usage_monthly', (t) => {
      t.string('account_id', 36).notNullable();
      t.string('month', 7).notNullable();
      t.double('seconds').notNullable();
      t.primary(['account_id', 'month']);
    });
    const postgres = dialectOf(db) === 'postgres';
    for (const sql of postgres ? POSTGRES_UP : SQLITE_UP) await db.raw(sql);
    const month = postgres ? POSTGRES_MONTH('charged_at') : SQLITE_MONTH('charged_at');
    await db.raw(`INSERT INTO gpu_usage_monthly (account_id, month, seconds) SELECT account_id, ${month}, SUM(seconds) FROM gpu_charges GROUP BY account_id, ${month}`);
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db) === 'postgres') {
      await db.raw('DROP TRIGGER IF EXISTS gpu_usage_monthly_track ON gpu_charges');
      await db.raw('DROP FUNCTION IF EXISTS gpu_usage_monthly_track()');
    } else {
      for (const name of ['add', 'remove']) await db.raw(`DROP TRIGGER IF EXISTS gpu_usage_monthly_${name}`);
    }
    await db.schema.dropTableIfExists('gpu_usage_monthly');
  },
};
