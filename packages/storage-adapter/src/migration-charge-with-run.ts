/**
 * Migration 020: a run's GPU time is charged by the write that finishes it. The finishing write
 * (succeeded, failed, canceled or expired, from a status that was not finished) that records GPU
 * seconds above zero also records the charge, at the run's finish time, in the same statement; the
 * monthly total follows by its own trigger on the charges (a finish written without its time is
 * charged at the moment of the write). Before, the charge was a write of its own just before the
 * finish: one statement more per run, and a charge left behind when the finishing write found the
 * run finished otherwise meanwhile (by another instance's recovery, say). A run is still charged
 * once: a charge already recorded for it is kept.
 * @module
 */
import { TERMINAL_STATUSES } from '@runload/core';
import { sqlStrings } from './columns.js';
import { runsTriggerMigration } from './runs-trigger-migration.js';

const FINISHED = `(${sqlStrings(TERMINAL_STATUSES)})`;

const SQLITE_UP = `CREATE TRIGGER runs_charge_gpu AFTER UPDATE OF status ON runs
  WHEN NEW.status IN ${FINISHED} AND OLD.status NOT IN ${FINISHED} AND NEW.gpu_seconds > 0
  BEGIN
    INSERT INTO gpu_charges (run_id, account_id, seconds, charged_at)
      VALUES (NEW.id, NEW.account_id, NEW.gpu_seconds, COALESCE(NEW.finished_at, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)))
      ON CONFLICT (run_id) DO NOTHING;
  END`;

const POSTGRES_UP = [
  `CREATE FUNCTION runs_charge_gpu() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO gpu_charges (run_id, account_id, seconds, charged_at)
       VALUES (NEW.id, NEW.account_id, NEW.gpu_seconds, COALESCE(NEW.finished_at, (extract(epoch from clock_timestamp()) * 1000)::bigint))
       ON CONFLICT (run_id) DO NOTHING;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER runs_charge_gpu AFTER UPDATE OF status ON runs FOR EACH ROW
     WHEN (NEW.status IN ${FINISHED} AND OLD.status NOT IN ${FINISHED} AND NEW.gpu_seconds > 0)
     EXECUTE FUNCTION runs_charge_gpu()`,
];

export const CHARGE_WITH_RUN_MIGRATION = runsTriggerMigration('020_gpu_charged_with_run', 'runs_charge_gpu', { sqlite: SQLITE_UP, postgres: POSTGRES_UP });
