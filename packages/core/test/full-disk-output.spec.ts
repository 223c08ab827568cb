/** A run's output that meets a full disk: nothing half-stored, and stored in full once space returns. */
import { expect } from 'chai';
import { bytes, makeWorld, startedRun, TINY_PNG } from './fixture.js';

describe("A run's output on a full disk", () => {
  it('leaves the run running with no asset, then stores the output and succeeds when tried again with space', async () => {
    const w = await makeWorld();
    const { p, lifecycle, run, timing } = await startedRun(w, 1);
    let full = true;
    const stage = w.ports.blobs.stage.bind(w.ports.blobs);
    w.ports.blobs.stage = async (source, options) => {
      if (!full) return stage(source, options);
      for await (const chunk of source) void chunk;
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    const output = { nodeId: '4', filename: 'out.png', contentType: 'image/png', open: async () => bytes(TINY_PNG) };

    const error = await lifecycle.succeeded(run, [output], timing).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).to.equal('ENOSPC');
    expect((await w.ports.runs.get(run.id))?.status).to.equal('running');
    expect((await w.api.listAssets.execute(p, {})).assets).to.deep.equal([]);
    expect(w.ports.blobs.stagedCount).to.equal(0);

    full = false;
    const done = await lifecycle.succeeded((await w.ports.runs.get(run.id))!, [output], timing);
    expect(done?.status).to.equal('succeeded');
    expect(done?.outputs).to.have.length(1);
    const content = await w.api.getAsset.content(p, done?.outputs[0]?.assetId ?? '', null);
    expect(content.asset.size).to.equal(TINY_PNG.length);
  });
});
