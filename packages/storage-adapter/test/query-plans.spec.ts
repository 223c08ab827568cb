/**
 * The hot queries must not depend on table size: each one the repository runs is checked with
 * SQLite's EXPLAIN QUERY PLAN (an index search, never a scan of the table or a sort).
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import { KnexAccountRepository, KnexAppVersionRepository, KnexAssetRepository, KnexGpuLedger, KnexRunRepository, KnexUsageRepository } from '@runload/storage-adapter';
import { newQueuedRun } from '@runload/core';
import { sqliteDatabase, type TestDatabase } from './databases.js';

interface Captured {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

describe('SQLite query plans of the hot queries', () => {
  let t: TestDatabase;
  let runs: KnexRunRepository;
  const accountIds = Array.from({ length: 10 }, () => randomUUID());
  const accountId = accountIds[0] as string;
  const appVersionId = randomUUID();
  const T = Date.UTC(2026, 0, 1);

  before(async () => {
    t = await sqliteDatabase();
    for (const id of accountIds) await new KnexAccountRepository(t.db).create({ id, name: 'a', tier: 'starter', status: 'active', createdAt: new Date(T) });
    await new KnexAppVersionRepository(t.db).create({ id: appVersionId, appId: randomUUID(), name: 'v', workflow: {}, inputs: [], createdAt: new Date(T), deletedAt: null });
    runs = new KnexRunRepository(t.db);
    const rows = Array.from({ length: 1000 }, (_, i) =>
      newQueuedRun({ id: randomUUID(), accountId: accountIds[i % accountIds.length] as string, appVersionId, createdAt: new Date(T + i), inputs: {} }),
    );
    for (const r of rows) await runs.create(r.createdAt.getTime() % 3 === 0 ? { ...r, status: 'succeeded', finishedAt: new Date(T + 1000) } : r);
    // Statistics as a production database would have them, so the plans are the ones it would use.
    await t.db.raw('ANALYZE');
  });
  after(async () => t?.close());

  async function plansOf(work: () => Promise<unknown>): Promise<string[][]> {
    const captured: Captured[] = [];
    const listener = (q: { sql: string; bindings?: unknown[] }) => captured.push({ sql: q.sql, bindings: q.bindings ?? [] });
    t.db.on('query', listener);
    try {
      await work();
    } finally {
      t.db.removeListener('query', listener);
    }
    const plans: string[][] = [];
    for (const q of captured) {
      // Transaction statements and the backends table of a claim are not the hot reads checked here.
      if (!/\b(runs|gpu_charges|assets)\b/.test(q.sql)) continue;
      const rows = (await t.db.raw(`EXPLAIN QUERY PLAN ${q.sql}`, q.bindings as Knex.RawBinding[])) as { detail: string }[];
      plans.push(rows.map((r) => r.detail));
    }
    return plans;
  }

  /**
   * @param sortsFew the rows found are sorted: the claim's candidates (their order depends on the
   *   runs each account holds now), the runs on backends; never the history
   */
  function expectIndexed(plans: string[][], sortsFew = false): void {
    expect(plans.length).to.be.greaterThan(0);
    for (const plan of plans) {
      const text = plan.join(' | ');
      expect(text, text).to.match(/SEARCH (runs|gpu_charges|assets)/);
      expect(text, text).to.not.match(/\bSCAN (runs|gpu_charges|assets)\b/);
      if (!sortsFew) expect(text, text).to.not.match(/TEMP B-TREE/);
    }
  }

  const monthlyUsage = () => new KnexUsageRepository(t.db).byAccount(new Date(T), new Date(T + 2000), { limit: 50 });
  const cases: [string, () => Promise<unknown>][] = [
    ['get by id', () => runs.get(randomUUID())],
    ['list by account, first page', () => runs.listByAccount(accountId, { limit: 20 })],
    ['list by account, a later page', async () => {
      const first = await runs.listByAccount(accountId, { limit: 20 });
      return runs.listByAccount(accountId, { limit: 20, after: first.nextCursor });
    }],
    ['poll of a waiting run, with its place', async () => runs.getWithQueuePosition((await runs.listByAccount(accountId, { limit: 1 })).runs[0]?.id as string)],
    ['queue position', () => runs.queuePosition(newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T + 150), inputs: {} }))],
    ['claim the next queued run', () => runs.claimNextQueued('d', new Date(T + 10_000), new Date(T + 5_000))],
    ['claim a run with a slot on a backend', () =>
      runs.claimNext({ owner: 'd', leaseExpiresAt: new Date(T + 10_000), now: new Date(T + 5_000), queuedSince: new Date(T), backends: [{ id: 'gpu', capacity: 1 }], place: (_run, free) => free[0]?.id ?? null })],
    ['guarded update', () => runs.update(randomUUID(), { status: 'running' }, { status: ['queued'], leaseOwner: 'd' })],
    ['count active', () => runs.countActive(accountId)],
    ['GPU seconds in flight', () => runs.estimateInFlightGpuSeconds(accountId)],
    ['GPU seconds of one run per app version (a batch of admissions)', () => runs.estimateGpuSeconds([appVersionId, randomUUID()])],
    ['GPU seconds used', () => new KnexGpuLedger(t.db).usedSeconds(accountId, new Date(T), new Date(T + 1000))],
    ['runs left by a dead instance on backends (recovery)', () => runs.listOrphaned(new Date(T + 5_000), 50)],
    ['runs failing over (recovery)', () => runs.listFailingOver(50)],
    ['runs past their queue time (the sweep)', () => runs.listQueuedBefore(new Date(T + 100), 50)],
    ['runs created in a window (the limiter after a restart)', () => runs.countCreated(accountId, new Date(T), new Date(T + 500))],
    ['runs held per backend (the pool)', () => runs.heldByBackend()],
    ['contents without a BLAKE3 (the backfill), a later page', () => new KnexAssetRepository(t.db).listMissingBlake3('8'.repeat(64), 100)],
    ['the usage report of a month', () => monthlyUsage()],
  ];
  const sortingFew = new Set(['claim a run with a slot on a backend', 'runs left by a dead instance on backends (recovery)', 'runs held per backend (the pool)']);
  for (const [name, work] of cases) {
    it(`${name}: searches an index`, async () => {
      const plans = await plansOf(work);
      if (process.env['RUNLOAD_SHOW_PLANS']) console.log(name, JSON.stringify(plans));
      expectIndexed(plans, sortingFew.has(name));
    });
  }

  it('the usage report reads the runs that ended in its month, not each account\'s whole history', async () => {
    const plans = await plansOf(monthlyUsage);
    const counted = plans.map((p) => p.join(' | ')).find((text) => /SEARCH runs/.test(text));
    expect(counted, JSON.stringify(plans)).to.match(/SEARCH runs USING (COVERING )?INDEX \w+ \(account_id=\? AND status=\? AND finished_at>\? AND finished_at<\?\)/);
  });
});
