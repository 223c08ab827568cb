/** The contract of AssetRepository. Every adapter runs it. */
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Asset } from '../domain/asset.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { RunRepository } from '../ports/run-repository.js';
import { aContractRun, STORAGE_CONTRACT_PARENTS } from './run-repository.contract.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 654);

function anAsset(overrides: Partial<Asset> = {}): Asset {
  return {
    id: randomUUID(),
    accountId: STORAGE_CONTRACT_PARENTS.accountIds[0],
    filename: 'photo (1).png',
    contentType: 'image/png',
    size: 1234,
    sha256: randomBytes(32).toString('hex'),
    blake3: randomBytes(32).toString('hex'),
    createdAt: new Date(T),
    origin: 'upload',
    expiresAt: new Date(T + 7 * 86_400_000),
    ...overrides,
  };
}

export function describeAssetRepositoryContract(
  name: string,
  /** `runs` is the run repository of the same storage (its runs' inputs decide `usedByRunInFlight`). */
  setup: () => Promise<{ subject: AssetRepository; runs: RunRepository; teardown?: () => Promise<void> }>,
): void {
  describe(`AssetRepository contract: ${name}`, () => {
    let assets: AssetRepository;
    let runs: RunRepository;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      assets = made.subject;
      runs = made.runs;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    it('returns null for an unknown id', async () => {
      expect(await assets.get(randomUUID())).to.equal(null);
    });

    it('round-trips every field, including sizes past 4 GiB', async () => {
      const a = anAsset({ filename: 'clip – final.mp4', contentType: 'video/mp4', size: 5_000_000_123 });
      await assets.create(a);
      expect(await assets.get(a.id)).to.deep.equal(a);
      const kept = anAsset({ origin: 'output', expiresAt: null });
      await assets.create(kept);
      expect(await assets.get(kept.id)).to.deep.equal(kept);
    });

    it('refuses a second asset with the same id and keeps the first', async () => {
      const a = anAsset();
      await assets.create(a);
      const error = await assets.create({ ...a, filename: 'other.png' }).then(() => null, (e: unknown) => e);
      expect(error, 'a duplicate id is refused').to.not.equal(null);
      expect(await assets.get(a.id)).to.deep.equal(a);
    });

    it('counts the records pointing at the same bytes, across accounts', async () => {
      const a = anAsset();
      await assets.create(a);
      await assets.create(anAsset({ sha256: a.sha256, accountId: STORAGE_CONTRACT_PARENTS.accountIds[1] }));
      await assets.create(anAsset());
      expect(await assets.countBySha256(a.sha256)).to.equal(2);
      expect(await assets.countBySha256(randomBytes(32).toString('hex'))).to.equal(0);
      await assets.delete(a.id);
      expect(await assets.countBySha256(a.sha256)).to.equal(1);
    });

    it('deletes a record once and leaves the others', async () => {
      const a = anAsset();
      const b = anAsset();
      await assets.create(a);
      await assets.create(b);
      expect(await assets.delete(a.id)).to.equal(true);
      expect(await assets.delete(a.id)).to.equal(false);
      expect(await assets.get(a.id)).to.equal(null);
      expect(await assets.get(b.id)).to.deep.equal(b);
    });

    it('lists the unexpired assets of an account newest first, page by page, filtered by kind and origin', async () => {
      const mine = [
        anAsset({ createdAt: new Date(T + 3000), contentType: 'image/png' }),
        anAsset({ createdAt: new Date(T + 2000), contentType: 'video/mp4', origin: 'output' }),
        anAsset({ createdAt: new Date(T + 2000), contentType: 'audio/wav', expiresAt: null }),
        anAsset({ createdAt: new Date(T + 1000), contentType: 'image/webp', origin: 'output' }),
      ];
      const expired = anAsset({ createdAt: new Date(T + 4000), expiresAt: new Date(T + 5000) });
      const other = anAsset({ accountId: STORAGE_CONTRACT_PARENTS.accountIds[1] });
      for (const a of [...mine, expired, other]) await assets.create(a);
      const now = new Date(T + 5000);
      const expected = [...mine].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((a) => a.id);
      const first = await assets.listByAccount(mine[0]?.accountId ?? '', { limit: 3, now });
      expect(first.assets.map((a) => a.id)).to.deep.equal(expected.slice(0, 3));
      expect(first.nextCursor).to.be.a('string');
      const second = await assets.listByAccount(mine[0]?.accountId ?? '', { limit: 3, now, after: first.nextCursor });
      expect(second.assets.map((a) => a.id)).to.deep.equal(expected.slice(3));
      expect(second.nextCursor).to.equal(null);
      const accountId = mine[0]?.accountId ?? '';
      expect((await assets.listByAccount(accountId, { limit: 10, now, kind: 'image' })).assets.map((a) => a.id)).to.deep.equal([mine[0]?.id, mine[3]?.id]);
      expect((await assets.listByAccount(accountId, { limit: 10, now, origin: 'output' })).assets.map((a) => a.id)).to.deep.equal([mine[1]?.id, mine[3]?.id]);
      expect((await assets.listByAccount(accountId, { limit: 10, now: new Date(T) })).assets.map((a) => a.id)).to.include(expired.id);
    });

    it('renews only uploads that have not expired', async () => {
      const live = anAsset();
      const expired = anAsset({ expiresAt: new Date(T) });
      const output = anAsset({ origin: 'output' });
      for (const a of [live, expired, output]) await assets.create(a);
      const later = new Date(T + 30 * 86_400_000);
      expect(await assets.renewUploads([live.id, expired.id, output.id, live.id], later, new Date(T + 1))).to.equal(1);
      expect((await assets.get(live.id))?.expiresAt).to.deep.equal(later);
      expect((await assets.get(expired.id))?.expiresAt).to.deep.equal(new Date(T));
      expect((await assets.get(output.id))?.expiresAt).to.deep.equal(output.expiresAt);
    });

    it('knows when a queued, running or canceling run of the owner uses an asset, and not once it finished', async () => {
      const a = anAsset();
      const unused = anAsset();
      await assets.create(a);
      await assets.create(unused);
      const run = aContractRun({ id: randomUUID(), inputs: { '1:image': a.id, '2:seed': 7 } });
      await runs.create(run);
      expect(await assets.usedByRunInFlight(a)).to.equal(true);
      expect(await assets.usedByRunInFlight(unused)).to.equal(false);
      await runs.update(run.id, { status: 'running' });
      expect(await assets.usedByRunInFlight(a)).to.equal(true);
      await runs.update(run.id, { status: 'succeeded', finishedAt: new Date(T + 1000) });
      expect(await assets.usedByRunInFlight(a)).to.equal(false);
    });

    it('lists expired assets of every account, oldest expiry first', async () => {
      const late = anAsset({ expiresAt: new Date(T + 2000) });
      const early = anAsset({ expiresAt: new Date(T + 1000), accountId: STORAGE_CONTRACT_PARENTS.accountIds[1] });
      const live = anAsset({ expiresAt: new Date(T + 9000) });
      const forever = anAsset({ expiresAt: null });
      for (const a of [late, early, live, forever]) await assets.create(a);
      expect((await assets.listExpired(new Date(T + 2000), 10)).map((a) => a.id)).to.deep.equal([early.id, late.id]);
      expect((await assets.listExpired(new Date(T + 2000), 1)).map((a) => a.id)).to.deep.equal([early.id]);
    });

    it('removes bytes only when no record refers to them, and a record of those bytes created meanwhile waits for the removal', async () => {
      const a = anAsset();
      await assets.create(a);
      let called = false;
      expect(await assets.deleteBlobIfUnreferenced(a.sha256, async () => (called = true))).to.equal(false);
      expect(called).to.equal(false);
      await assets.delete(a.id);
      const again = anAsset({ sha256: a.sha256 });
      let createdAt = 0;
      let removedAt = 0;
      let creating: Promise<void> = Promise.resolve();
      const removed = await assets.deleteBlobIfUnreferenced(a.sha256, async () => {
        creating = assets.create(again).then(() => void (createdAt = performance.now()));
        // Other work on the storage goes on meanwhile; the new record still waits.
        await assets.get(a.id);
        await assets.countBySha256(randomBytes(32).toString('hex'));
        expect(createdAt, 'the record was created while the bytes were being removed').to.equal(0);
        removedAt = performance.now();
      });
      await creating;
      expect(removed).to.equal(true);
      expect(createdAt).to.be.above(removedAt);
      expect(await assets.get(again.id)).to.deep.equal(again);
    });

    it('hides a pending record from reads, listings and expiry until it is marked stored, while its bytes count as referred to', async () => {
      const pending = anAsset({ expiresAt: new Date(T + 1000) });
      await assets.createPending(pending);
      const page = { limit: 10, now: new Date(T) };
      expect(await assets.get(pending.id)).to.equal(null);
      expect(await assets.get(pending.id, { includePending: true })).to.deep.equal(pending);
      expect((await assets.listByAccount(pending.accountId, page)).assets).to.deep.equal([]);
      expect(await assets.listExpired(new Date(T + 2000), 10)).to.deep.equal([]);
      expect(await assets.renewUploads([pending.id], null, new Date(T))).to.equal(0);
      expect(await assets.countBySha256(pending.sha256)).to.equal(1);
      let called = false;
      expect(await assets.deleteBlobIfUnreferenced(pending.sha256, async () => (called = true))).to.equal(false);
      expect(called).to.equal(false);
      const error = await assets.create({ ...pending }).then(() => null, (e: unknown) => e);
      expect(error, 'its id is taken').to.not.equal(null);

      expect(await assets.markStored(pending.id)).to.equal(true);
      expect(await assets.get(pending.id)).to.deep.equal(pending);
      expect((await assets.listByAccount(pending.accountId, page)).assets).to.deep.equal([pending]);
      expect(await assets.markStored(randomUUID())).to.equal(false);
    });

    it("reveals a run's pending outputs in the write that makes it succeeded, and only the outputs of the run's account", async () => {
      const [account, other] = STORAGE_CONTRACT_PARENTS.accountIds;
      const run = aContractRun({ status: 'running' });
      await runs.create(run);
      const first = anAsset({ origin: 'output', expiresAt: null });
      const second = anAsset({ origin: 'output', expiresAt: null });
      const foreign = anAsset({ origin: 'output', expiresAt: null, accountId: other });
      const unnamed = anAsset({ origin: 'output', expiresAt: null });
      for (const a of [first, second, foreign, unnamed]) await assets.createPending(a);
      const outputOf = (a: Asset) => ({ assetId: a.id, filename: a.filename, contentType: a.contentType, size: a.size, nodeId: '9' });
      const outputs = [first, second, foreign].map(outputOf);

      // A write that does not finish the run, outputs named or not, reveals nothing.
      await runs.update(run.id, { progress: { value: 1, max: 2, nodeId: '9' }, outputs });
      expect(await assets.get(first.id), 'before the run succeeded').to.equal(null);

      expect(account).to.equal(run.accountId);
      await runs.update(run.id, { status: 'succeeded', finishedAt: new Date(T + 1000), outputs }, { status: ['running'] });
      expect(await assets.get(first.id)).to.deep.equal(first);
      expect(await assets.get(second.id)).to.deep.equal(second);
      expect(await assets.get(foreign.id), "another account's record of a named id").to.equal(null);
      expect(await assets.get(unnamed.id), 'a record the outputs do not name').to.equal(null);
    });

    it('leaves the outputs of a run finished otherwise, or whose finishing write found it moved on, pending', async () => {
      const failed = aContractRun({ status: 'running' });
      const lost = aContractRun({ status: 'canceled' });
      await runs.create(failed);
      await runs.create(lost);
      const a = anAsset({ origin: 'output', expiresAt: null });
      const b = anAsset({ origin: 'output', expiresAt: null });
      await assets.createPending(a);
      await assets.createPending(b);
      const outputOf = (x: Asset) => [{ assetId: x.id, filename: x.filename, contentType: x.contentType, size: x.size, nodeId: '9' }];
      await runs.update(failed.id, { status: 'failed', finishedAt: new Date(T + 1000), outputs: outputOf(a) });
      expect(await runs.update(lost.id, { status: 'succeeded', outputs: outputOf(b) }, { status: ['running'] })).to.equal(null);
      expect(await assets.get(a.id)).to.equal(null);
      expect(await assets.get(b.id)).to.equal(null);
      expect((await assets.listPending(new Date(T + 60_000), 10)).map((x) => x.id).sort()).to.deep.equal([a.id, b.id].sort());
    });

    it('gives each of several calls made together its own answer, and fails only the call that is wrong', async () => {
      const stored = anAsset();
      const pending = anAsset();
      await assets.create(stored);
      await assets.createPending(pending);
      const missing = randomUUID();
      const reads = await Promise.all([
        assets.get(stored.id),
        assets.get(pending.id),
        assets.get(pending.id, { includePending: true }),
        assets.get(missing),
        assets.get(stored.id, { includePending: true }),
      ]);
      expect(reads).to.deep.equal([stored, null, pending, null, stored]);

      const fresh = anAsset();
      const creates = await Promise.allSettled([assets.createPending(fresh), assets.createPending({ ...pending }), assets.createPending(anAsset())]);
      expect(creates.map((c) => c.status), 'only the taken id fails').to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);

      expect(await Promise.all([assets.markStored(pending.id), assets.markStored(missing), assets.markStored(fresh.id), assets.markStored(pending.id)])).to.deep.equal([true, false, true, true]);
      expect(await Promise.all([assets.get(pending.id), assets.get(fresh.id)])).to.deep.equal([pending, fresh]);
    });

    it('lists pending records created before a time, oldest first, up to a limit', async () => {
      const old = anAsset({ createdAt: new Date(T - 2000) });
      const older = anAsset({ createdAt: new Date(T - 3000) });
      const young = anAsset({ createdAt: new Date(T + 1000) });
      const stored = anAsset({ createdAt: new Date(T - 5000) });
      for (const a of [old, older, young]) await assets.createPending(a);
      await assets.create(stored);
      expect((await assets.listPending(new Date(T), 10)).map((a) => a.id)).to.deep.equal([older.id, old.id]);
      expect((await assets.listPending(new Date(T), 1)).map((a) => a.id)).to.deep.equal([older.id]);
      expect(await assets.delete(older.id)).to.equal(true);
      expect((await assets.listPending(new Date(T), 10)).map((a) => a.id)).to.deep.equal([old.id]);
    });
  
    it('finds the newest unexpired asset of an account by its BLAKE3, and never another account\'s', async () => {
      const older = anAsset({ createdAt: new Date(T) });
      const newer = anAsset({ createdAt: new Date(T + 1000), sha256: older.sha256, blake3: older.blake3 });
      const expired = anAsset({ createdAt: new Date(T + 2000), sha256: older.sha256, blake3: older.blake3, expiresAt: new Date(T + 3000) });
      const theirs = anAsset({ accountId: STORAGE_CONTRACT_PARENTS.accountIds[1] });
      for (const a of [older, newer, expired, theirs]) await assets.create(a);
      const now = new Date(T + 3000);
      expect((await assets.findByBlake3(older.accountId, older.blake3 ?? '', now))?.id).to.equal(newer.id);
      expect(await assets.findByBlake3(older.accountId, theirs.blake3 ?? '', now)).to.equal(null);
      expect((await assets.findByBlake3(theirs.accountId, theirs.blake3 ?? '', now))?.id).to.equal(theirs.id);
    });

    it('lists the bytes whose BLAKE3 is unknown and fills it on every asset of them', async () => {
      const a = anAsset({ blake3: null });
      const b = anAsset({ blake3: null, sha256: a.sha256, accountId: STORAGE_CONTRACT_PARENTS.accountIds[1] });
      const known = anAsset();
      for (const x of [a, b, known]) await assets.create(x);
      expect(await assets.listMissingBlake3(null, 10)).to.deep.equal([a.sha256]);
      expect(await assets.setBlake3(a.sha256, 'ab'.repeat(32))).to.equal(2);
      expect((await assets.get(b.id))?.blake3).to.equal('ab'.repeat(32));
      expect(await assets.listMissingBlake3(null, 10)).to.deep.equal([]);
      expect(await assets.setBlake3(known.sha256, 'cd'.repeat(32)), 'a known hash is kept').to.equal(0);
    });

    it('lists the unknown BLAKE3s page by page in SHA-256 order, each once', async () => {
      const shas = ['0a', '3f', '9c', 'b1', 'e7'].map((p) => p + '0'.repeat(62));
      for (const sha256 of [...shas].reverse()) await assets.create(anAsset({ blake3: null, sha256 }));
      await assets.create(anAsset({ blake3: null, sha256: shas[2] as string }));
      expect(await assets.listMissingBlake3(null, 2)).to.deep.equal(shas.slice(0, 2));
      expect(await assets.listMissingBlake3(shas[1] as string, 2)).to.deep.equal(shas.slice(2, 4));
      expect(await assets.listMissingBlake3(shas[3] as string, 2)).to.deep.equal(shas.slice(4));
      expect(await assets.listMissingBlake3(shas[4] as string, 2)).to.deep.equal([]);
    });
  });
}
