/**
 * Migration 018: an account's runs indexed by status and then by finish time, in place of the
 * index by status alone. The usage report counts each account's runs that ended in a month; with
 * the status alone it read every finished run of the account to test its finish time, so a report
 * cost what the accounts' histories held. The reads of an account's unfinished runs use the new
 * index's first two columns as they used the old one.
 * @module
 */
import type { Knex } from 'knex';

export const RUNS_BY_ACCOUNT_FINISHED_MIGRATION = {
  name: '018_runs_by_account_finished',
  async up(db: Knex): Promise<void> {
    await db.raw('CREATE INDEX runs_by_account_finished ON runs (account_id, status, finished_at)');
    await db.raw('DROP INDEX runs_by_account_status');
  },
  async down(db: Knex): Promise<void> {
    await db.raw('CREATE INDEX runs_by_account_status ON runs (account_id, status)');
    await db.raw('DROP INDEX runs_by_account_finished');
  },
};
