/** The contract of AssetRepository. Every adapter runs it. */
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Asset } from '../domain/asset.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import { STORAGE_CONTRACT_PARENTS } from './run-repository.contract.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 654);

function anAsset(overrides: Partial<Asset> = {}): Asset {
  return {
    id: randomUUID(),
    accountId: STORAGE_CONTRACT_PARENTS.accountIds[0],
    filename: 'photo (1).png',
    contentType: 'image/png',
    size: 1234,
    sha256: randomBytes(32).toString('hex'),
    createdAt: new Date(T),
    ...overrides,
  };
}

export function describeAssetRepositoryContract(
  name: string,
  setup: () => Promise<{ subject: AssetRepository; teardown?: () => Promise<void> }>,
): void {
  describe(`AssetRepository contract: ${name}`, () => {
    let assets: AssetRepository;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      assets = made.subject;
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
  });
}
