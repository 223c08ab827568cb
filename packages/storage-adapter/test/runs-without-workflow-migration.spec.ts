/**
 * Upgrading to migration 015: runs stored with their own copy of the workflow keep everything else,
 * are claimed with their version's workflow, and undoing the migration gives each its copy again.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RunToPlace, Workflow } from '@runload/core';
import { KnexAccountRepository, KnexAppVersionRepository, KnexRunRepository, migrate } from '@runload/storage-adapter';
import { undoMigrationsAfter } from '../src/migrations.js';
import { pgUrl, postgresDatabase, sqliteDatabase } from './databases.js';

const T = Date.UTC(2026, 0, 1);
const WORKFLOW: Workflow = { '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 20 } }, '9': { class_type: 'SaveImage', inputs: { images: ['8', 0] } } };

describe('upgrading to migration 015 (a run keeps no copy of its workflow)', function () {
  for (const [name, open] of [['SQLite', sqliteDatabase], ['PostgreSQL', async () => postgresDatabase(pgUrl() as string)]] as const) {
    it(`keeps the runs stored before, places them with their version's workflow, and undoes with the copies back (${name})`, async function () {
      if (name === 'PostgreSQL' && !pgUrl()) this.skip();
      const t = await open();
      try {
        const accountId = randomUUID();
        const appVersionId = randomUUID();
        await new KnexAccountRepository(t.db).create({ id: accountId, name: 'a', tier: 'plus', status: 'active', createdAt: new Date(T) });
        await new KnexAppVersionRepository(t.db).create({ id: appVersionId, appId: randomUUID(), name: 'v', workflow: WORKFLOW, inputs: [], createdAt: new Date(T), deletedAt: null });
        await undoMigrationsAfter(t.db, '014_runs_placed_at');
        const id = randomUUID();
        await t.db('runs').insert({
          id, account_id: accountId, app_version_id: appVersionId, status: 'queued', created_at: T + 1,
          inputs: '{"3:seed":7}', workflow: JSON.stringify(WORKFLOW), outputs: '[]', metrics: '{"queueMs":null,"runMs":null,"gpuSeconds":null}',
        });
        await migrate(t.db);
        expect(Object.keys((await t.db('runs').where({ id }).first()) as object)).to.not.include('workflow');
        const runs = new KnexRunRepository(t.db);
        expect(await runs.get(id)).to.deep.include({ id, status: 'queued', inputs: { '3:seed': 7 } });
        let placedWith: Workflow | null = null;
        const claimed = await runs.claimNext({
          owner: 'd1', leaseExpiresAt: new Date(T + 120_000), now: new Date(T + 60_000), queuedSince: new Date(T), backends: [{ id: 'gpu-a', capacity: 1 }],
          place: (run: RunToPlace, free) => ((placedWith = run.workflow), free[0]?.id ?? null),
        });
        expect(claimed?.id).to.equal(id);
        expect(placedWith).to.deep.equal(WORKFLOW);
        await undoMigrationsAfter(t.db, '014_runs_placed_at');
        const restored = await t.db('runs').where({ id }).first('workflow');
        expect(JSON.parse(String(restored?.workflow))).to.deep.equal(WORKFLOW);
      } finally {
        await t.close();
      }
    });
  }
});
