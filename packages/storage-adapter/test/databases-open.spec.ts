import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { newQueuedRun } from '@runload/core';
import { KnexGpuLedger, KnexRunRepository, migrate, openDatabase } from '@runload/storage-adapter';
import { undoMigrationsAfter } from '../src/migrations.js';
import { fromRun as fromRunRow } from '../src/run-row.js';
import { pgUrl, postgresDatabase, seedAccountAndApp, sqliteDatabase, type TestDatabase } from './databases.js';

const T = Date.UTC(2026, 0, 1);

async function schemaOf(db: Knex): Promise<string[]> {
  const rows = (await db.raw(`SELECT type || ' ' || name || ': ' || COALESCE(sql, '') AS s FROM sqlite_master ORDER BY name`)) as { s: string }[];
  return rows.map((r) => r.s);
}

const aRun = (accountId: string, appVersionId: string, ms: number) =>
  newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T + ms), inputs: {} });

describe('SQLite database file', () => {
  let t: TestDatabase;
  beforeEach(async () => (t = await sqliteDatabase()));
  afterEach(async () => t.close());

  it('creates a missing data directory and opens with WAL, a busy timeout and foreign keys on', async () => {
    const parent = mkdtempSync(path.join(os.tmpdir(), 'runload-open-'));
    const dataDir = path.join(parent, 'nested', 'data');
    const db = openDatabase({ dataDir });
    try {
      await migrate(db);
      expect(existsSync(path.join(dataDir, 'runload.sqlite'))).to.equal(true);
      expect(((await db.raw('PRAGMA journal_mode')) as { journal_mode: string }[])[0]?.journal_mode).to.equal('wal');
      expect(((await db.raw('PRAGMA foreign_keys')) as { foreign_keys: number }[])[0]?.foreign_keys).to.equal(1);
      expect(((await db.raw('PRAGMA busy_timeout')) as { timeout: number }[])[0]?.timeout).to.be.at.least(5000);
      // Statement journals in memory (2), not in temporary files.
      expect(((await db.raw('PRAGMA temp_store')) as { temp_store: number }[])[0]?.temp_store).to.equal(2);
    } finally {
      await db.destroy();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('runs its migrations once: migrating again changes nothing', async () => {
    const before = await schemaOf(t.db);
    const applied = await t.db('runload_migrations').count<{ n: number }[]>({ n: '*' });
    await migrate(t.db);
    await migrate(t.another());
    expect(await schemaOf(t.db)).to.deep.equal(before);
    expect(await t.db('runload_migrations').count<{ n: number }[]>({ n: '*' })).to.deep.equal(applied);
    expect(before.join('\n')).to.include('runs_by_account_finished');
    expect(before.join('\n')).to.include('runs_reveal_outputs');
  });

  it('lets a second process (another knex on the same file) see writes, and two writers work side by side', async () => {
    const second = t.another();
    const { accountId, appVersionId } = await seedAccountAndApp(t.db);
    const first = new KnexRunRepository(t.db);
    const other = new KnexRunRepository(second);
    const written = aRun(accountId, appVersionId, 0);
    await first.create(written);
    expect(await other.get(written.id)).to.deep.equal(written);
    const runs = Array.from({ length: 80 }, (_, i) => aRun(accountId, appVersionId, i + 1));
    await Promise.all(runs.map((r, i) => (i % 2 === 0 ? first : other).create(r)));
    expect(await first.countActive(accountId)).to.equal(81);
    const claims = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? first : other).claimNextQueued(`d${i}`, new Date(T + 60_000), new Date(T))));
    expect(new Set(claims.map((c) => c?.id)).size).to.equal(40);
  });

  it('upgrading a database with runs in flight counts them for the GPU estimate (migration 003)', async () => {
    const { accountId, appVersionId } = await seedAccountAndApp(t.db);
    const runs = new KnexRunRepository(t.db);
    await runs.create({ ...aRun(accountId, appVersionId, 0), status: 'succeeded', finishedAt: new Date(T + 1), metrics: { queueMs: 1, runMs: 1, gpuSeconds: 2 } });
    await undoMigrationsAfter(t.db, '002_runs_by_account_status');
    for (const ms of [1, 2, 3]) await t.db('runs').insert({ ...fromRunRow(aRun(accountId, appVersionId, ms)) });
    await migrate(t.db);
    expect(await runs.estimateInFlightGpuSeconds(accountId)).to.equal(6);
  });

  it('upgrading a database with GPU charges totals them per calendar month (migration 004)', async () => {
    const { accountId } = await seedAccountAndApp(t.db);
    const march = Date.UTC(2026, 2, 1);
    await undoMigrationsAfter(t.db, '003_runs_in_flight');
    const charges = [[march - 1, 1], [march, 2], [march + 86_400_000, 4.5]] as const;
    for (const [at, seconds] of charges) await t.db('gpu_charges').insert({ run_id: randomUUID(), account_id: accountId, seconds, charged_at: at });
    await migrate(t.db);
    const ledger = new KnexGpuLedger(t.db);
    expect(await ledger.usedSeconds(accountId, new Date(march), new Date(Date.UTC(2026, 3, 1)))).to.equal(6.5);
    await ledger.charge({ runId: randomUUID(), accountId, seconds: 1, chargedAt: new Date(march + 5) });
    expect(await ledger.usedSeconds(accountId, new Date(march), new Date(Date.UTC(2026, 3, 1)))).to.equal(7.5);
    expect(await ledger.usedSeconds(accountId, new Date(Date.UTC(2026, 1, 1)), new Date(march))).to.equal(1);
  });
});

describe('upgrading to migration 006 (integrations)', function () {
  for (const [name, open] of [['SQLite', sqliteDatabase], ['PostgreSQL', async () => postgresDatabase(pgUrl() as string)]] as const) {
    it(`keeps the runs of an older database and reports webhooks of new runs only (${name})`, async function () {
      if (name === 'PostgreSQL' && !pgUrl()) this.skip();
      const t = await open();
      try {
        const { accountId, appVersionId } = await seedAccountAndApp(t.db);
        await undoMigrationsAfter(t.db, '004_gpu_usage_monthly');
        const old = aRun(accountId, appVersionId, 1);
        const { webhook_url: _url, webhook_events: _events, ...row } = fromRunRow(old) as Record<string, unknown>;
        await t.db('runs').insert(row);
        await migrate(t.db);
        const runs = new KnexRunRepository(t.db);
        expect((await runs.get(old.id))?.webhook).to.equal(null);
        await runs.update(old.id, { status: 'succeeded', startedAt: new Date(T + 2), finishedAt: new Date(T + 3) });
        const hooked = { ...aRun(accountId, appVersionId, 4), webhook: { url: 'https://hooks.example.com/x', events: ['run.succeeded' as const] } };
        await runs.create(hooked);
        await runs.update(hooked.id, { status: 'succeeded', startedAt: new Date(T + 5), finishedAt: new Date(T + 6) });
        const events = await t.db('webhook_outbox').select('run_id', 'event_type');
        expect(events).to.deep.equal([{ run_id: hooked.id, event_type: 'run.succeeded' }]);
        // The triggers of migration 003 survived: the in-flight counter still follows new runs.
        await runs.create(aRun(accountId, appVersionId, 7));
        const counted = await t.db('runs_in_flight').where({ account_id: accountId }).sum<{ n: number | string }[]>({ n: 'n' });
        expect(Number(counted[0]?.n)).to.equal(1);
      } finally {
        await t.close();
      }
    });
  }
});

describe('PostgreSQL schema per test database', function () {
  let url: string | null;
  let t: TestDatabase | undefined;
  before(function () {
    url = pgUrl();
    if (!url) this.skip();
  });
  afterEach(async () => t?.close());

  it('creates its tables in its own schema, and migrating again is a no-op', async () => {
    t = await postgresDatabase(url as string);
    const schema = String(((await t.db.raw('SELECT current_schema() AS s')) as { rows: { s: string }[] }).rows[0]?.s);
    expect(schema).to.match(/^t_[0-9a-f]{12}$/);
    const tables = async () =>
      ((await t?.db.raw('SELECT table_name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name', [schema])) as { rows: { table_name: string }[] }).rows.map((r) => r.table_name);
    const before = await tables();
    expect(before).to.include.members(['accounts', 'api_keys', 'app_versions', 'assets', 'gpu_charges', 'runs', 'runs_in_flight', 'runload_migrations']);
    const applied = async () => Number((await t?.db('runload_migrations').count<{ n: string }[]>({ n: '*' }))?.[0]?.n);
    const migrations = await applied();
    await migrate(t.db);
    await migrate(t.another());
    expect(await tables()).to.deep.equal(before);
    expect(await applied()).to.equal(migrations);
  });
});
