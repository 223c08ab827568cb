/**
 * A migration that adds one trigger on `runs`: on SQLite the trigger itself, on PostgreSQL a
 * function and the trigger that calls it, both under the trigger's name. Undone by dropping them.
 * @module
 */
import type { Knex } from 'knex';
import { dialectOf } from './open-database.js';

export interface RunsTriggerSql {
  /** `CREATE TRIGGER <name> … ON runs …` */
  readonly sqlite: string;
  /** `CREATE FUNCTION <name>() …`, then `CREATE TRIGGER <name> … ON runs … EXECUTE FUNCTION <name>()` */
  readonly postgres: readonly string[];
}

export function runsTriggerMigration(name: string, trigger: string, sql: RunsTriggerSql) {
  return {
    name,
    async up(db: Knex): Promise<void> {
      for (const statement of dialectOf(db) === 'postgres' ? sql.postgres : [sql.sqlite]) await db.raw(statement);
    },
    async down(db: Knex): Promise<void> {
      if (dialectOf(db) === 'postgres') {
        await db.raw(`DROP TRIGGER IF EXISTS ${trigger} ON runs`);
        await db.raw(`DROP FUNCTION IF EXISTS ${trigger}()`);
      } else {
        await db.raw(`DROP TRIGGER IF EXISTS ${trigger}`);
      }
    },
  };
}
