/** Test databases: SQLite in a temp dir (always) and PostgreSQL in a fresh schema (RUNLOAD_TEST_PG_URL). */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { migrate, openDatabase } from '@runload/storage-adapter';

export interface TestDatabase {
  readonly db: Knex;
  readonly dataDir: string;
  /** Another connection pool on the same database, as a second instance would have. */
  another(): Knex;
  close(): Promise<void>;
}

export async function sqliteDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runload-sqlite-'));
  const db = openDatabase({ dataDir });
  await migrate(db);
  const others: Knex[] = [];
  return {
    db,
    dataDir,
    another: () => {
      const k = openDatabase({ dataDir });
      others.push(k);
      return k;
    },
    close: async () => {
      await Promise.all([db.destroy(), ...others.map((o) => o.destroy())]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The PostgreSQL URL for tests, or null (pending) — in CI a missing URL fails. */
export function pgUrl(): string | null {
  const url = process.env['RUNLOAD_TEST_PG_URL'] ?? null;
  if (!url && process.env['CI'] === 'true') throw new Error('CI=true but RUNLOAD_TEST_PG_URL is not set: the PostgreSQL suites must run in CI');
  return url;
}

export async function postgresDatabase(url: string): Promise<TestDatabase> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runload-pg-'));
  const db = openDatabase({ url, dataDir, schema, poolMax: 5 });
  await migrate(db);
  const others: Knex[] = [];
  return {
    db,
    dataDir,
    another: () => {
      const k = openDatabase({ url, dataDir, schema, poolMax: 5 });
      others.push(k);
      return k;
    },
    close: async () => {
      await Promise.all(others.map((o) => o.destroy()));
      await db.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await db.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
