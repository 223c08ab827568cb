/**
 * A process killed between an asset's record and its bytes: the record is never visible without
 * its bytes, and what the kill left is removed once no live writer can still be committing it.
 */
import { expect } from 'chai';
import { RemoveAbandonedAssets, RunLifecycle, outputAssetId, type StagedBlob } from '@runload/core';
import { bytes, makeWorld, TINY_PNG } from './fixture.js';

const GRACE_MS = 10 * 60_000;

/** A blob store whose commits never finish: the process dies while its bytes reach the disk. */
function killedDuringCommit(w: Awaited<ReturnType<typeof makeWorld>>): { committing: Promise<void> } {
  let reached: () => void = () => undefined;
  const committing = new Promise<void>((resolve) => (reached = resolve));
  const stage = w.ports.blobs.stage.bind(w.ports.blobs);
  w.ports.blobs.stage = async (source, options): Promise<StagedBlob> => {
    const staged = await stage(source, options);
    return {
      ...staged,
      commit: () => {
        reached();
        return new Promise(() => undefined);
      },
    };
  };
  return { committing };
}

describe('Asset records a killed writer left', () => {
  it('are never listed or readable before their bytes are committed, and are removed after the grace time with their bytes', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const { committing } = killedDuringCommit(w);
    const content = Buffer.concat([TINY_PNG, Buffer.from('killed')]);
    void w.api.uploadAsset.execute({ accountId: p.account.id, filename: 'a.png', content: bytes(content), maxBytes: 1e6 });
    await committing;
    expect((await w.api.listAssets.execute(p, {})).assets, 'listed while its bytes are being committed').to.deep.equal([]);
    const [pending] = await w.ports.assets.listPending(new Date(w.clock.nowMs() + 1), 10);
    expect(pending?.filename).to.equal('a.png');
    expect(await w.ports.assets.get(pending?.id ?? '')).to.equal(null);

    const remove = new RemoveAbandonedAssets(w.ports.assets, w.ports.blobs, w.clock, GRACE_MS);
    expect(await remove.run(), 'a writer may still be committing it').to.equal(0);
    w.clock.advance(GRACE_MS + 1);
    expect(await remove.run()).to.equal(1);
    expect(await w.ports.assets.get(pending?.id ?? '', { includePending: true })).to.equal(null);
    expect(await w.ports.assets.countBySha256(pending?.sha256 ?? '')).to.equal(0);
    expect(await remove.run()).to.equal(0);
  });

  it("let a run's output be stored again when the earlier attempt died before its bytes", async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const run = (await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } })).run;
    const lifecycle = new RunLifecycle(w.ports.runs, w.ports.assets, w.ports.blobs, w.ports.workSignal, w.clock);
    const output = { nodeId: '4', filename: 'out.png', contentType: 'image/png', open: async () => bytes(TINY_PNG) };
    // The first attempt wrote the record, then its process died.
    const sha256 = (await w.ports.blobs.stage(bytes(TINY_PNG), { maxBytes: 1e6 }).then(async (s) => (await s.discard(), s.sha256)));
    await w.ports.assets.createPending({
      id: outputAssetId(run.id, 0),
      accountId: p.account.id,
      filename: 'out.png',
      blake3: null,
      contentType: 'image/png',
      size: TINY_PNG.length,
      sha256,
      createdAt: w.clock.now(),
      origin: 'output',
      expiresAt: null,
    });
    const current = await w.ports.runs.get(run.id);
    if (!current) throw new Error('no run');
    const done = await lifecycle.succeeded(current, [output], { startedAtMs: w.clock.nowMs(), finishedAtMs: w.clock.nowMs() });
    expect(done?.status).to.equal('succeeded');
    const listed = (await w.api.listAssets.execute(p, {})).assets;
    expect(listed.map((a) => a.id)).to.deep.equal([outputAssetId(run.id, 0)]);
    expect(await w.ports.blobs.size(sha256)).to.equal(TINY_PNG.length);
  });
});
