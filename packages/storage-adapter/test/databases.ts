/** Test databases: SQLite in a temp dir (always) and PostgreSQL in a fresh schema (RUNLOAD_TEST_PG_URL). */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { KnexAccountRepository, KnexAppVersionRepository, migrate, openDatabase } from '@runload/storage-adapter';

export interface TestDatabase {
  readonly db: Knex;
  readonly dataDir: string;
  /** Another connection pool on the same database, as a second instance would have. */
  another(): Knex;
  close(): Promise<void>;
}

/** A test database and the further pools a second instance would open on it. */
function testDatabase(dataDir: string, open: () => Knex, dropData: (db: Knex) => Promise<void>, db: Knex): TestDatabase {
  const others: Knex[] = [];
  return {
    db,
    dataDir,
    another: () => {
      const k = open();
      others.push(k);
      return k;
    },
    close: async () => {
      await Promise.all(others.map((o) => o.destroy()));
      await dropData(db);
      await db.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function sqliteDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runload-sqlite-'));
  const open = () => openDatabase({ dataDir });
  const db = open();
  await migrate(db);
  // The file goes with the data directory.
  return testDatabase(dataDir, open, async () => undefined, db);
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
  const open = () => openDatabase({ url, dataDir, schema, poolMax: 5 });
  const db = open();
  await migrate(db);
  return testDatabase(dataDir, open, async (d) => void (await d.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)), db);
}

/**
 * The databases every storage suite runs on: SQLite always, PostgreSQL when RUNLOAD_TEST_PG_URL
 * is set. An opener that returns null leaves its suite pending (never in CI: `pgUrl` throws there).
 */
export const TEST_DATABASES: readonly (readonly [string, () => Promise<TestDatabase> | null])[] = [
  ['SQLite', () => sqliteDatabase()],
  [
    'PostgreSQL',
    () => {
      const url = pgUrl();
      return url ? postgresDatabase(url) : null;
    },
  ],
];

/** Opens the database before a suite (pending when not configured) and closes it after; `get()` inside tests. */
export function useDatabase(open: () => Promise<TestDatabase> | null): { get(): TestDatabase } {
  let t: TestDatabase | undefined;
  before(async function () {
    const opening = open();
    if (!opening) return this.skip();
    t = await opening;
  });
  after(async () => t?.close());
  return { get: () => t as TestDatabase };
}

/** An account and an app version (created at the start of 2026) for a test's runs to belong to. */
export async function seedAccountAndApp(db: Knex): Promise<{ accountId: string; appVersionId: string }> {
  const accountId = randomUUID();
  const appVersionId = randomUUID();
  const createdAt = new Date(Date.UTC(2026, 0, 1));
  await new KnexAccountRepository(db).create({ id: accountId, name: 'a', tier: 'plus', status: 'active', createdAt });
  await new KnexAppVersionRepository(db).create({ id: appVersionId, appId: randomUUID(), name: 'v', workflow: {}, inputs: [], createdAt, deletedAt: null });
  return { accountId, appVersionId };
}
