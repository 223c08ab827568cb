import { expect } from 'chai';
import { CoreError } from '@runload/core';
import { UnavailableExecutor } from '@runload/core/testing';
import { bytes, makeWorld, TINY_PNG } from './fixture.js';

const DAY = 86_400_000;

/** A world, a user and an image the user uploaded. */
async function worldWithUpload() {
  const w = await makeWorld();
  const p = await w.principal();
  const image = await w.api.uploadAsset.execute({ accountId: p.account.id, filename: 'cat.png', content: bytes(TINY_PNG), maxBytes: 1000 });
  return { w, p, image };
}

const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as CoreError);

describe('CreateRun', () => {
  it('queues a run with the published values and the validated inputs', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const image = await w.api.uploadAsset.execute({ accountId: p.account.id, filename: 'cat.png', content: bytes(TINY_PNG), maxBytes: 1000 });
    const { run } = await w.api.createRun.execute({
      principal: p,
      appVersionId: w.app.id,
      body: { inputs: { '1:image': image.id, '2:blur_radius': 5, '3:text': 'a cat' } },
    });
    expect(run.status).to.equal('queued');
    expect(run.inputs).to.deep.equal({ '1:image': image.id, '2:blur_radius': 5, '3:text': 'a cat' });
    const view = await w.api.getRun.execute(p, run.id);
    expect(view.queuePosition).to.equal(0);
  });

  it('shows a run a backend holds at position 0 and the runs still waiting behind it in order', async () => {
    const w = await makeWorld();
    const p = await w.principal('ultra');
    const image = await w.api.uploadAsset.execute({ accountId: p.account.id, filename: 'cat.png', content: bytes(TINY_PNG), maxBytes: 1000 });
    const create = async () => (await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: { '1:image': image.id } } })).run;
    const [first, second, third] = [await create(), await create(), await create()];
    const now = w.clock.now();
    const claimed = await w.ports.runs.claimNext({
      owner: 'test',
      leaseExpiresAt: new Date(now.getTime() + 60_000),
      now,
      queuedSince: new Date(0),
      backends: [{ id: 'gpu-1', capacity: 1 }],
      place: (_run, free) => free[0]?.id ?? null,
    });
    expect(claimed?.id).to.equal(first?.id);
    const position = async (id: string) => (await w.api.getRun.execute(p, id)).queuePosition;
    expect(await position(first!.id), 'on its backend, still queued there').to.equal(0);
    expect(await position(second!.id)).to.equal(0);
    expect(await position(third!.id)).to.equal(1);
  });

  it('reports every bad input key with a reason', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const error = await failure(
      w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: { '9:nope': 1, '2:blur_radius': 'big', '3:text': 7, '1:image': 'x' } } }),
    );
    expect(error?.code).to.equal('INVALID_INPUT');
    expect((error?.details as readonly { key: string }[]).map((d) => d.key).sort()).to.deep.equal(['1:image', '2:blur_radius', '3:text', '9:nope']);
  });

  it("refuses another account's asset exactly like a missing one", async () => {
    const w = await makeWorld();
    const alice = await w.principal();
    const bob = await w.principal();
    const image = await w.api.uploadAsset.execute({ accountId: alice.account.id, filename: 'a.png', content: bytes(TINY_PNG), maxBytes: 1000 });
    const foreign = await failure(w.api.createRun.execute({ principal: bob, appVersionId: w.app.id, body: { inputs: { '1:image': image.id } } }));
    const missing = await failure(
      w.api.createRun.execute({ principal: bob, appVersionId: w.app.id, body: { inputs: { '1:image': '00000000-0000-4000-8000-00000000ffff' } } }),
    );
    expect(foreign?.details).to.deep.equal(missing?.details);
    expect(foreign?.details).to.deep.equal([{ key: '1:image', reason: 'no image asset with this id' }]);
  });

  it('checks body, then app version, then inputs', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const run = (appVersionId: string | null, body: unknown) => failure(w.api.createRun.execute({ principal: p, appVersionId, body }));
    expect((await run('nope', 'text'))?.code).to.equal('INVALID_REQUEST');
    expect((await run('nope', { inputs: [] }))?.code).to.equal('INVALID_REQUEST');
    expect((await run(null, { inputs: {} }))?.code).to.equal('INVALID_REQUEST');
    const missing = await run('nope', { inputs: { bad: 1 } });
    expect(missing?.code).to.equal('APP_VERSION_NOT_FOUND');
    expect(missing?.message).to.contain('nope');
    await w.api.apps.delete(w.app.id);
    const deleted = await run(w.app.id, { inputs: {} });
    expect(deleted?.code).to.equal('APP_DELETED');
    expect(deleted?.message).to.contain(w.app.id);
  });

  it('answers SERVICE_UNAVAILABLE without a reachable backend, consuming no run budget', async () => {
    const w = await makeWorld({ executor: new UnavailableExecutor() });
    const p = await w.principal();
    const error = await failure(w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } }));
    expect(error?.code).to.equal('SERVICE_UNAVAILABLE');
    expect(error?.message).to.contain('unreachable');
    const view = await w.api.runAdmission.peek(p.account);
    expect(view.windows.map((s) => s.remaining)).to.deep.equal([10, 100]);
  });

  it('renews an upload it uses with one write, and refuses the run naming an upload deleted between the check and the renewal', async () => {
    const { w, p, image } = await worldWithUpload();
    const reads: string[] = [];
    const get = w.ports.assets.get.bind(w.ports.assets);
    w.ports.assets.get = (id) => (reads.push(id), get(id));
    await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: { '1:image': image.id } } });
    expect(reads, 'read once, by the check').to.deep.equal([image.id]);

    // Used again more than a minute later: its clock restarts, and the write finds it deleted.
    w.clock.advance(61_000);
    const renew = w.ports.assets.renewUploads.bind(w.ports.assets);
    w.ports.assets.renewUploads = async (ids, expiresAt, now) => {
      await w.ports.assets.delete(image.id); // deleted by its owner meanwhile
      return renew(ids, expiresAt, now);
    };
    const error = await failure(w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: { '1:image': image.id } } }));
    expect(error?.code).to.equal('INVALID_INPUT');
    expect(error?.details).to.deep.equal([{ key: '1:image', reason: 'no image asset with this id' }]);
  });

  it('restarts an upload\'s retention clock when a run uses it, writing at most once a minute', async () => {
    const { w, p, image } = await worldWithUpload();
    const writes: number[] = [];
    const renew = w.ports.assets.renewUploads.bind(w.ports.assets);
    w.ports.assets.renewUploads = (ids, expiresAt, now) => (writes.push(now.getTime()), renew(ids, expiresAt, now));
    const run = () => w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: { '1:image': image.id } } });
    const expiry = async () => (await w.ports.assets.get(image.id))?.expiresAt?.getTime();
    const uploadedAt = w.clock.nowMs();

    w.clock.advance(30_000);
    await run();
    expect(writes, 'used half a minute after its upload: nothing to write').to.deep.equal([]);
    expect(await expiry()).to.equal(uploadedAt + DAY * 7);

    w.clock.advance(3 * 3_600_000);
    await run();
    await run();
    expect(writes, 'three hours later: one write, and none for the run right after').to.deep.equal([w.clock.nowMs()]);
    expect(await expiry(), 'seven days from the first of the two runs').to.equal(w.clock.nowMs() + DAY * 7);
  });

  it('refunds the run budget when writing the run fails', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    w.ports.runs.create = async () => {
      throw new Error('disk full');
    };
    const error = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } }).catch((e: Error) => e);
    expect((error as Error).message).to.equal('disk full');
    const view = await w.api.runAdmission.peek(p.account);
    expect(view.windows.map((s) => s.remaining)).to.deep.equal([10, 100]);
  });
});

describe('CancelRun', () => {
  it('cancels a queued run at once and leaves a finished run unchanged', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const { run } = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
    const canceled = await w.api.cancelRun.execute(p, run.id);
    expect(canceled.status).to.equal('canceled');
    expect(canceled.finishedAt?.getTime()).to.equal(w.clock.nowMs());
    const again = await w.api.cancelRun.execute(p, run.id);
    expect(again).to.deep.equal(canceled);
    const other = await w.principal();
    expect((await failure(w.api.cancelRun.execute(other, run.id)))?.code).to.equal('RUN_NOT_FOUND');
  });
});

describe('UploadAsset', () => {
  it('stores an image by its bytes and refuses text renamed .png without leaving a blob', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const asset = await w.api.uploadAsset.execute({ accountId: p.account.id, filename: '../../etc/cat.png', content: bytes(TINY_PNG), maxBytes: 1000 });
    expect(asset).to.include({ filename: 'cat.png', contentType: 'image/png', size: TINY_PNG.length });
    const text = Buffer.from('hello, not an image');
    const error = await failure(w.api.uploadAsset.execute({ accountId: p.account.id, filename: 'fake.png', content: bytes(text), maxBytes: 1000 }));
    expect(error?.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    const tooBig = await failure(w.api.uploadAsset.execute({ accountId: p.account.id, filename: 'big.png', content: bytes(TINY_PNG), maxBytes: 10 }));
    expect(tooBig?.code).to.equal('PAYLOAD_TOO_LARGE');
    expect(await w.ports.blobs.size(asset.sha256)).to.equal(TINY_PNG.length);
  });
});
