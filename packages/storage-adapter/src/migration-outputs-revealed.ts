/**
 * Migration 019: a run's outputs are revealed by the write that makes it `succeeded`. Each output's
 * record is written pending before its bytes (so the retention sweep and a delete of the same
 * bytes never take them), and used to be marked stored by a write of its own before the run's
 * status; a trigger now does it in the statement that finishes the run, for the assets of the
 * run's account that its outputs name. One write less per output, and a reader sees the run
 * succeeded and its outputs at the same instant. An output whose run never succeeds (the run was
 * finished otherwise meanwhile) stays pending, and the sweep of pending records removes it.
 * @module
 */
import { runsTriggerMigration } from './runs-trigger-migration.js';

const SQLITE_UP = `CREATE TRIGGER runs_reveal_outputs AFTER UPDATE OF status ON runs
  WHEN NEW.status = 'succeeded' AND OLD.status <> 'succeeded'
  BEGIN
    UPDATE assets SET pending = 0 WHERE pending <> 0 AND account_id = NEW.account_id
       AND id IN (SELECT json_extract(o.value, '$.assetId') FROM json_each(NEW.outputs) o);
  END`;

const POSTGRES_UP = [
  `CREATE FUNCTION runs_reveal_outputs() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     UPDATE assets SET pending = false WHERE pending AND account_id = NEW.account_id
        AND id IN (SELECT o ->> 'assetId' FROM json_array_elements(NEW.outputs::json) o);
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER runs_reveal_outputs AFTER UPDATE OF status ON runs FOR EACH ROW
     WHEN (NEW.status = 'succeeded' AND OLD.status <> 'succeeded') EXECUTE FUNCTION runs_reveal_outputs()`,
];

export const OUTPUTS_REVEALED_MIGRATION = runsTriggerMigration('019_outputs_revealed_with_run', 'runs_reveal_outputs', { sqlite: SQLITE_UP, postgres: POSTGRES_UP });
