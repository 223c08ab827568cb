/**
 * The contract of the storage ports (accounts, keys, app versions, assets, runs, GPU ledger).
 * Every adapter runs it: `describeStorageContract('knex sqlite', setup)`.
 * @module
 */
import { expect } from 'chai';
import type { AccountRepository } from '../ports/account-repository.js';
import type { ApiKeyRepository } from '../ports/api-key-repository.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { GpuLedger } from '../ports/gpu-ledger.js';
import type { Run } from '../domain/run.js';
import type { RunRepository } from '../ports/run-repository.js';
import { anAccount, anAppVersion, aRun, nextId } from './contract-fixtures.js';

export interface StoragePorts {
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly appVersions: AppVersionRepository;
  readonly assets: AssetRepository;
  readonly runs: RunRepository;
  readonly gpuLedger: GpuLedger;
}

export type StorageSetup = () => Promise<{ ports: StoragePorts; teardown?: () => Promise<void> }>;

const MINUTE = 60_000;
const T = Date.UTC(2026, 0, 1, 12);

export function describeStorageContract(name: string, setup: StorageSetup): void {
  describe(`storage contract: ${name}`, function () {
    let s: StoragePorts;
    let teardown: (() => Promise<void>) | undefined;
    let accountId: string;
    let appVersionId: string;

    beforeEach(async function () {
      const made = await setup();
      s = made.ports;
      teardown = made.teardown;
      const account = anAccount();
      await s.accounts.create(account);
      accountId = account.id;
      const version = anAppVersion();
      await s.appVersions.create(version);
      appVersionId = version.id;
    });

    afterEach(async () => {
      await teardown?.();
    });

    describe('accounts', () => {
      it('returns what was stored, null for an unknown id, and applies patches', async () => {
        const a = anAccount({ name: 'Grace', tier: 'ultra' });
        await s.accounts.create(a);
        expect(await s.accounts.get(a.id)).to.deep.equal(a);
        expect(await s.accounts.get(nextId())).to.equal(null);
        expect(await s.accounts.update(a.id, { status: 'suspended', tier: 'plus' })).to.deep.equal({ ...a, status: 'suspended', tier: 'plus' });
        expect(await s.accounts.update(nextId(), { status: 'suspended' })).to.equal(null);
        expect((await s.accounts.list()).map((x) => x.id)).to.include(a.id);
      });
    });

    describe('api keys', () => {
      it('finds by prefix, refuses a duplicate prefix, and keeps the first revocation time', async () => {
        const key = { id: nextId(), accountId, prefix: 'AbCdEfGhIj', secretHash: 'f'.repeat(64), createdAt: new Date(T), revokedAt: null };
        await s.apiKeys.create(key);
        expect(await s.apiKeys.findByPrefix('AbCdEfGhIj')).to.deep.equal(key);
        expect(await s.apiKeys.findByPrefix('ZZZZZZZZZZ')).to.equal(null);
        let duplicate: unknown = null;
        await s.apiKeys.create({ ...key, id: nextId() }).catch((e: unknown) => (duplicate = e));
        expect(duplicate, 'a second key with the same prefix is refused').to.not.equal(null);
        expect((await s.apiKeys.revoke(key.id, new Date(T + 1)))?.revokedAt?.getTime()).to.equal(T + 1);
        expect((await s.apiKeys.revoke(key.id, new Date(T + 2)))?.revokedAt?.getTime()).to.equal(T + 1);
        expect(await s.apiKeys.revoke(nextId(), new Date(T))).to.equal(null);
      });
    });

    describe('app versions', () => {
      it('round-trips the workflow and inputs and marks deletion without removing', async () => {
        const v = anAppVersion();
        await s.appVersions.create(v);
        expect(await s.appVersions.get(v.id)).to.deep.equal(v);
        expect((await s.appVersions.markDeleted(v.id, new Date(T)))?.deletedAt?.getTime()).to.equal(T);
        expect((await s.appVersions.markDeleted(v.id, new Date(T + 5)))?.deletedAt?.getTime()).to.equal(T);
        expect((await s.appVersions.get(v.id))?.workflow).to.deep.equal(v.workflow);
        expect(await s.appVersions.markDeleted(nextId(), new Date(T))).to.equal(null);
      });
    });

    describe('assets', () => {
      it('stores, counts by hash, and deletes', async () => {
        const a = { id: nextId(), accountId, filename: 'a.png', contentType: 'image/png', size: 10, sha256: 'a'.repeat(64), createdAt: new Date(T) };
        await s.assets.create(a);
        await s.assets.create({ ...a, id: nextId() });
        expect(await s.assets.get(a.id)).to.deep.equal(a);
        expect(await s.assets.countBySha256('a'.repeat(64))).to.equal(2);
        expect(await s.assets.delete(a.id)).to.equal(true);
        expect(await s.assets.delete(a.id)).to.equal(false);
        expect(await s.assets.get(a.id)).to.equal(null);
      });
    });

    describe('gpu ledger', () => {
      it('sums charges in a period and charges a run once', async () => {
        const runId = nextId();
        await s.gpuLedger.charge({ accountId, runId, seconds: 1.5, chargedAt: new Date(T) });
        await s.gpuLedger.charge({ accountId, runId, seconds: 99, chargedAt: new Date(T) });
        await s.gpuLedger.charge({ accountId, runId: nextId(), seconds: 2, chargedAt: new Date(T + MINUTE) });
        await s.gpuLedger.charge({ accountId, runId: nextId(), seconds: 7, chargedAt: new Date(T + 10 * MINUTE) });
        expect(await s.gpuLedger.usedSeconds(accountId, new Date(T), new Date(T + 10 * MINUTE))).to.equal(3.5);
        expect(await s.gpuLedger.usedSeconds(nextId(), new Date(0), new Date(T * 2))).to.equal(0);
      });
    });

    describe('runs', () => {
      const queued = (minute: number, extra = {}) => aRun(accountId, appVersionId, { createdAt: new Date(T + minute * MINUTE), ...extra });

      it('round-trips every field', async () => {
        const run = queued(0, {
          status: 'succeeded',
          startedAt: new Date(T + 5),
          finishedAt: new Date(T + 9),
          progress: { value: 3, max: 4, nodeId: '1' },
          outputs: [{ assetId: nextId(), filename: 'o.png', contentType: 'image/png', size: 9, nodeId: '1' }],
          error: null,
          metrics: { queueMs: 5, runMs: 4, gpuSeconds: 0.004 },
          backendId: 'http://b:8188',
          cancelRequested: true,
        });
        await s.runs.create(run);
        expect(await s.runs.get(run.id)).to.deep.equal(run);
        expect(await s.runs.get(nextId())).to.equal(null);
      });

      it('updates only when the guard holds', async () => {
        const run = queued(0, { leaseOwner: 'a', leaseExpiresAt: new Date(T + MINUTE) });
        await s.runs.create(run);
        expect(await s.runs.update(run.id, { status: 'running' }, { status: ['running'] })).to.equal(null);
        expect(await s.runs.update(run.id, { status: 'running' }, { leaseOwner: 'b' })).to.equal(null);
        expect((await s.runs.get(run.id))?.status).to.equal('queued');
        const updated = await s.runs.update(run.id, { status: 'running', startedAt: new Date(T + 1) }, { status: ['queued'], leaseOwner: 'a' });
        expect(updated?.status).to.equal('running');
        expect(updated?.startedAt?.getTime()).to.equal(T + 1);
        expect(await s.runs.update(nextId(), { status: 'running' })).to.equal(null);
      });

      it('pages newest first without duplicates or gaps', async () => {
        const made: Run[] = [];
        for (let i = 0; i < 7; i += 1) {
          const r = queued(i % 3);
          made.push(r);
          await s.runs.create(r);
        }
        await s.runs.create(aRun((await makeOtherAccount(s)).id, appVersionId));
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const page: Awaited<ReturnType<RunRepository['listByAccount']>> = await s.runs.listByAccount(accountId, { limit: 3, after: cursor });
          seen.push(...page.runs.map((r) => r.id));
          cursor = page.nextCursor;
        } while (cursor);
        expect(seen).to.have.length(7);
        expect(new Set(seen).size).to.equal(7);
        const expected = [...made]
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
          .map((r) => r.id);
        expect(seen).to.deep.equal(expected);
      });

      it('reports queue positions and claims the oldest free queued run, never twice', async () => {
        const a = queued(0);
        const b = queued(1);
        const c = queued(2, { leaseOwner: 'other', leaseExpiresAt: new Date(T + 60 * MINUTE) });
        for (const r of [c, b, a]) await s.runs.create(r);
        expect(await s.runs.queuePosition(b)).to.equal(1);
        const now = new Date(T + 10 * MINUTE);
        const until = new Date(T + 11 * MINUTE);
        expect((await s.runs.claimNextQueued('me', until, now))?.id).to.equal(a.id);
        expect((await s.runs.claimNextQueued('me', until, now))?.id).to.equal(b.id);
        expect(await s.runs.claimNextQueued('me', until, now), 'a live lease is not claimable').to.equal(null);
        expect((await s.runs.claimNextQueued('me', until, new Date(T + 61 * MINUTE)))?.id, 'an expired lease is').to.equal(a.id);
      });

      it('hands each of 20 runs to exactly one of 50 concurrent claimers', async () => {
        for (let i = 0; i < 20; i += 1) await s.runs.create(queued(i));
        const now = new Date(T + 100 * MINUTE);
        const claims = await Promise.all(Array.from({ length: 50 }, (_, i) => s.runs.claimNextQueued(`d${i}`, new Date(T + 200 * MINUTE), now)));
        const got = claims.filter((r) => r !== null).map((r) => r?.id);
        expect(got).to.have.length(20);
        expect(new Set(got).size).to.equal(20);
      });

      it('finds orphans, takes over leases, renews and releases them', async () => {
        const dead = queued(0, { status: 'running', backendId: 'b1', leaseOwner: 'dead', leaseExpiresAt: new Date(T) });
        const live = queued(1, { status: 'running', backendId: 'b1', leaseOwner: 'live', leaseExpiresAt: new Date(T + 60 * MINUTE) });
        const done = queued(2, { status: 'succeeded', backendId: 'b1', leaseOwner: null });
        for (const r of [dead, live, done]) await s.runs.create(r);
        const now = new Date(T + MINUTE);
        expect((await s.runs.listOrphaned(now, 10)).map((r) => r.id)).to.deep.equal([dead.id]);
        expect(await s.runs.acquireLease(live.id, 'me', new Date(T + 2 * MINUTE), now)).to.equal(null);
        expect(await s.runs.acquireLease(done.id, 'me', new Date(T + 2 * MINUTE), now)).to.equal(null);
        expect((await s.runs.acquireLease(dead.id, 'me', new Date(T + 2 * MINUTE), now))?.leaseOwner).to.equal('me');
        expect(await s.runs.renewLeases('me', new Date(T + 5 * MINUTE))).to.equal(1);
        expect((await s.runs.get(dead.id))?.leaseExpiresAt?.getTime()).to.equal(T + 5 * MINUTE);
        expect(await s.runs.releaseLeases('me')).to.equal(1);
        expect((await s.runs.get(dead.id))?.leaseOwner).to.equal(null);
      });

      it('lists stale queued runs, counts active ones and estimates GPU time in flight', async () => {
        await s.runs.create(queued(0));
        await s.runs.create(queued(5));
        for (const g of [2, 4]) {
          await s.runs.create(queued(1, { status: 'succeeded', finishedAt: new Date(T + 2 * MINUTE), metrics: { queueMs: 1, runMs: g * 1000, gpuSeconds: g } }));
        }
        expect((await s.runs.listQueuedBefore(new Date(T + 3 * MINUTE), 10)).map((r) => r.createdAt.getTime())).to.deep.equal([T]);
        expect(await s.runs.countActive(accountId)).to.equal(2);
        expect(await s.runs.estimateInFlightGpuSeconds(accountId)).to.equal(6);
        expect(await s.runs.delete((await s.runs.listQueuedBefore(new Date(T + 3 * MINUTE), 1))[0]?.id ?? '')).to.equal(true);
      });
    });
  });
}

async function makeOtherAccount(s: StoragePorts) {
  const other = anAccount({ name: 'Other' });
  await s.accounts.create(other);
  return other;
}
