/** The BLAKE3 backfill against in-memory adapters: what it fills, and that bytes gone are asked for once. */
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { FillBlake3, type Asset, type AssetRepository } from '@runload/core';
import { InMemoryAssetRepository, InMemoryBlobStore } from '@runload/core/testing';

async function* bytes(b: Buffer): AsyncIterable<Uint8Array> {
  yield b;
}

function assetOf(sha256: string): Asset {
  const t = new Date(Date.UTC(2026, 4, 1));
  return { id: randomUUID(), accountId: 'a', filename: 'x.png', contentType: 'image/png', size: 3, sha256, blake3: null, createdAt: t, origin: 'upload', expiresAt: null };
}

/** Counts the contents the backfill is given to hash, each time it is given them. */
function counting(assets: AssetRepository): { repository: AssetRepository; listed: string[] } {
  const listed: string[] = [];
  const repository = Object.create(assets) as AssetRepository;
  repository.listMissingBlake3 = async (after, limit) => {
    const page = await assets.listMissingBlake3(after, limit);
    listed.push(...page);
    return page;
  };
  return { repository, listed };
}

describe('FillBlake3', () => {
  it('fills the assets whose bytes are stored and lists each content without bytes once', async () => {
    const assets = new InMemoryAssetRepository();
    const blobs = new InMemoryBlobStore();
    const stored: { sha256: string; blake3: string }[] = [];
    for (let i = 0; i < 3; i += 1) {
      const staged = await blobs.stage(bytes(randomBytes(16)), { maxBytes: 100 });
      await staged.commit();
      stored.push({ sha256: staged.sha256, blake3: staged.blake3 });
      await assets.create(assetOf(staged.sha256));
    }
    // 250 assets whose bytes are gone: more than two batches of them.
    for (let i = 0; i < 250; i += 1) await assets.create(assetOf(randomBytes(32).toString('hex')));
    const { repository, listed } = counting(assets);

    expect(await new FillBlake3(repository, blobs).run({ batch: 100 })).to.equal(3);

    expect(listed).to.have.length(253);
    expect(new Set(listed).size).to.equal(253);
    const left = await assets.listMissingBlake3(null, 1000);
    expect(left).to.have.length(250);
    for (const { sha256, blake3 } of stored) {
      expect(left).to.not.include(sha256);
      expect((await assets.findByBlake3('a', blake3, new Date(Date.UTC(2026, 4, 2))))?.sha256).to.equal(sha256);
    }
  });

  it('stops between two contents when asked to', async () => {
    const assets = new InMemoryAssetRepository();
    for (let i = 0; i < 5; i += 1) await assets.create(assetOf(randomBytes(32).toString('hex')));
    const { repository, listed } = counting(assets);
    let asked = 0;
    expect(await new FillBlake3(repository, new InMemoryBlobStore()).run({ batch: 2, stopped: () => (asked += 1) > 1 })).to.equal(0);
    expect(listed).to.have.length(2);
  });
});
