/** The retention sweep against in-memory adapters: what it removes, what it keeps, and one instance at a time. */
import { expect } from 'chai';
import { createRunloadApi, mergeLimits, SweepExpiredAssets, type Principal } from '@runload/core';
import { createInMemoryPorts, FakeClock, InMemoryMaintenanceLease } from '@runload/core/testing';

const T0 = Date.UTC(2026, 4, 1, 12, 0, 0);
const HOUR = 3_600_000;
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082',
  'hex',
);

async function* bytes(b: Buffer): AsyncIterable<Uint8Array> {
  yield b;
}

describe('SweepExpiredAssets', () => {
  const setup = async () => {
    const clock = new FakeClock(T0);
    const ports = createInMemoryPorts({ clock });
    // Uploads live one hour.
    const api = createRunloadApi(ports, mergeLimits({ retention: { uploads_days: 1 / 24, outputs_days: null } }));
    const account = await api.accounts.create('Ada', 'ultra');
    const principal = { account } as unknown as Principal;
    const leases = new InMemoryMaintenanceLease();
    const sweep = (owner = 'a') => new SweepExpiredAssets(ports.assets, ports.blobs, leases, clock, { owner, leaseMs: 60_000 }).run();
    const upload = (b: Buffer) => api.uploadAsset.execute({ accountId: account.id, filename: 'a.png', content: bytes(b), maxBytes: 1e6 });
    return { clock, ports, api, principal, sweep, upload };
  };

  it('removes an expired asset and its bytes, and keeps live and forever assets and their bytes', async () => {
    const { clock, ports, sweep, upload } = await setup();
    const old = await upload(Buffer.concat([PNG, Buffer.from('old')]));
    clock.advance(HOUR / 2);
    const fresh = await upload(Buffer.concat([PNG, Buffer.from('fresh')]));
    clock.advance(HOUR / 2);
    expect(await sweep()).to.deep.equal({ assetsRemoved: 1, blobsRemoved: 1 });
    expect(await ports.assets.get(old.id)).to.equal(null);
    expect(await ports.blobs.size(old.sha256)).to.equal(null);
    expect(await ports.blobs.size(fresh.sha256)).to.equal(fresh.size);
    expect(await sweep()).to.deep.equal({ assetsRemoved: 0, blobsRemoved: 0 });
  });

  it('keeps bytes another live asset shares, and removes bytes no asset refers to', async () => {
    const { clock, ports, sweep, upload } = await setup();
    const same = Buffer.concat([PNG, Buffer.from('same')]);
    const first = await upload(same);
    clock.advance(HOUR / 2);
    await upload(same);
    const orphan = await ports.blobs.stage(bytes(Buffer.from('orphan')), { maxBytes: 100 });
    await orphan.commit();
    clock.advance(HOUR / 2);
    expect(await sweep()).to.deep.equal({ assetsRemoved: 1, blobsRemoved: 1 });
    expect(await ports.assets.get(first.id)).to.equal(null);
    expect(await ports.blobs.size(first.sha256)).to.equal(first.size);
    expect(await ports.blobs.size(orphan.sha256)).to.equal(null);
  });

  it('a re-upload of the same bytes arriving while the sweep removes them survives with its bytes', async () => {
    const { clock, ports, sweep, upload } = await setup();
    const same = Buffer.concat([PNG, Buffer.from('raced')]);
    const old = await upload(same);
    clock.advance(HOUR);
    // The re-upload starts exactly when the sweep removes the old bytes.
    const remove = ports.blobs.delete.bind(ports.blobs);
    let reupload: Promise<{ id: string }> | null = null;
    ports.blobs.delete = async (sha256) => {
      reupload ??= upload(same);
      await new Promise((r) => setImmediate(r));
      return remove(sha256);
    };
    expect(await sweep()).to.deep.equal({ assetsRemoved: 1, blobsRemoved: 1 });
    const again = await (reupload as unknown as Promise<{ id: string }>);
    expect(again.id).to.not.equal(old.id);
    expect(await ports.blobs.size(old.sha256)).to.equal(same.length);
    expect((await ports.assets.get(again.id))?.sha256).to.equal(old.sha256);
  });

  it('keeps an expired input of a run in flight, and runs on one instance at a time', async () => {
    const { clock, ports, api, principal, sweep, upload } = await setup();
    const version = await api.apps.publish({ name: 'x', workflow: { '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } } });
    const input = await upload(PNG);
    await api.createRun.execute({ principal, appVersionId: version.id, body: { inputs: { '1:image': input.id } } });
    clock.advance(2 * HOUR);
    expect(await sweep('a')).to.deep.equal({ assetsRemoved: 0, blobsRemoved: 0 });
    expect(await ports.assets.get(input.id)).to.not.equal(null);
    expect(await sweep('b'), 'the lease of a is still running').to.equal(null);
  });
});
