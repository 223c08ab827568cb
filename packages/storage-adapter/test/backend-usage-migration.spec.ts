/**
 * Upgrading to migration 017: what each backend executed before it is counted at once, the runs
 * finished after it are counted as they finish, and undoing it leaves the runs as they were.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { newQueuedRun, type Run } from '@runload/core';
import { KnexRunRepository, migrate } from '@runload/storage-adapter';
import { undoMigrationsAfter } from '../src/migrations.js';
import { pgUrl, postgresDatabase, seedAccountAndApp, sqliteDatabase } from './databases.js';

const T = Date.UTC(2026, 0, 1);

describe('upgrading to migration 017 (what each backend executed, kept as runs finish)', function () {
  for (const [name, open] of [['SQLite', sqliteDatabase], ['PostgreSQL', async () => postgresDatabase(pgUrl() as string)]] as const) {
    it(`counts the runs finished before it, then each run as it finishes, and undoes cleanly (${name})`, async function () {
      if (name === 'PostgreSQL' && !pgUrl()) this.skip();
      const t = await open();
      try {
        const { accountId, appVersionId } = await seedAccountAndApp(t.db);
        await undoMigrationsAfter(t.db, '016_assets_missing_blake3');
        const runs = new KnexRunRepository(t.db);
        const aRun = (overrides: Partial<Run>): Run => ({ ...newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T), inputs: {} }), ...overrides });
        const ended = (gpuSeconds: number): Partial<Run> => ({ status: 'succeeded', finishedAt: new Date(T + 5000), metrics: { queueMs: 1, runMs: 1, gpuSeconds } });
        const running = aRun({ backendId: 'http://gpu-a:8188', status: 'running' });
        for (const run of [aRun({ backendId: 'http://gpu-a:8188', ...ended(2) }), aRun({ backendId: 'http://gpu-b:8188', ...ended(0.5) }), running]) await runs.create(run);

        await migrate(t.db);
        const usage = async () => Object.fromEntries([...(await runs.backendUsage())].map(([id, u]) => [id, [u.runsExecuted, u.gpuSeconds]]));
        expect(await usage()).to.deep.equal({ 'http://gpu-a:8188': [1, 2], 'http://gpu-b:8188': [1, 0.5] });
        await runs.update(running.id, ended(1));
        expect(await usage()).to.deep.equal({ 'http://gpu-a:8188': [2, 3], 'http://gpu-b:8188': [1, 0.5] });

        await undoMigrationsAfter(t.db, '016_assets_missing_blake3');
        expect(await t.db('runs').where({ account_id: accountId }).count({ n: '*' }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) === 3);
        // No trigger is left behind: it would fail this update on the table the undo dropped.
        await runs.update(running.id, { status: 'failed' });
      } finally {
        await t.close();
      }
    });
  }
});
