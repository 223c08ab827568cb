/** Content named by BLAKE3: an account finds its own bytes only, and older assets get their hash from their bytes. */
import { expect } from 'chai';
import { createRunloadApi, DEFAULT_LIMITS, type Asset } from '@runload/core';
import { createInMemoryPorts } from '@runload/core/testing';

async function* bytes(text: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(text);
}

describe('content by hash', () => {
  const setup = async () => {
    const ports = createInMemoryPorts();
    const api = createRunloadApi(ports, DEFAULT_LIMITS);
    const principalOf = async (name: string) => ({ account: await api.accounts.create(name, 'starter'), keyId: name });
    return { ports, api, alice: await principalOf('alice'), bob: await principalOf('bob') };
  };

  it('mints a new asset over the caller\'s bytes by their hash, and finds nothing for another account', async () => {
    const { ports, api, alice, bob } = await setup();
    const staged = await ports.blobs.stage(bytes('abc'), { maxBytes: 10 });
    await staged.commit();
    const now = new Date();
    const original: Asset = { id: '00000000-0000-4000-8000-0000000000a1', accountId: alice.account.id, filename: 'a.png', contentType: 'image/png', size: 3, sha256: staged.sha256, blake3: staged.blake3, createdAt: now, origin: 'output', expiresAt: null };
    await ports.assets.create(original);
    const name = `blake3:${staged.blake3}`;
    expect((await api.contentByHash.find(alice, name))?.id).to.equal(original.id);
    expect(await api.contentByHash.find(bob, name)).to.equal(null);
    expect(await api.contentByHash.find(alice, 'sha256:abc')).to.equal(null);
    const minted = await api.contentByHash.mint(alice, name, 'copy.png');
    expect(minted).to.include({ accountId: alice.account.id, filename: 'copy.png', sha256: staged.sha256, blake3: staged.blake3, origin: 'upload' });
    expect(minted.id).to.not.equal(original.id);
    const refused = await api.contentByHash.mint(bob, name, null).then(() => null, (e: unknown) => e);
    expect(refused).to.have.property('code', 'BLOB_NOT_FOUND');
  });

  it('fills the BLAKE3 of assets stored without it from their bytes, and skips bytes that are gone', async () => {
    const { ports, api, alice } = await setup();
    const staged = await ports.blobs.stage(bytes('abc'), { maxBytes: 10 });
    await staged.commit();
    const base = { accountId: alice.account.id, filename: 'a.png', contentType: 'image/png', size: 3, blake3: null, createdAt: new Date(), origin: 'upload' as const, expiresAt: null };
    await ports.assets.create({ ...base, id: '00000000-0000-4000-8000-0000000000b1', sha256: staged.sha256 });
    await ports.assets.create({ ...base, id: '00000000-0000-4000-8000-0000000000b2', sha256: 'f'.repeat(64) });
    expect(await api.fillBlake3.run({ batch: 1 })).to.equal(1);
    expect((await ports.assets.get('00000000-0000-4000-8000-0000000000b1'))?.blake3).to.equal('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
    expect((await ports.assets.get('00000000-0000-4000-8000-0000000000b2'))?.blake3).to.equal(null);
  });
});
