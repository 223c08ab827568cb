/** A media file already on a ComfyUI server is not sent again for the next run using it. */
import { expect } from 'chai';
import { makePng, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { ComfyUiExecutor } from '@runload/gpu-adapter';
import type { ExecutionJob } from '@runload/core';
import { waitFor } from '@runload/core/testing';

const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'runload' } },
};
const PNG = makePng(4, 4, () => [1, 2, 3, 255]);

function job(n: number, assetId = 'cccccccc-0000-4000-8000-000000000001'): ExecutionJob {
  return {
    runId: `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`,
    workflow: WORKFLOW,
    inputs: { '1:image': assetId },
    media: { '1:image': { assetId, filename: 'in.png', contentType: 'image/png', open: async () => (async function* () { yield PNG; })() } },
  };
}

const until = (condition: () => Promise<boolean>, what: string) => waitFor(condition, what, { timeoutMs: 10_000, intervalMs: 20 });

describe('media inputs reused on a ComfyUI server', function () {
  this.timeout(60_000);
  let fake: FakeComfyUI;
  let executor: ComfyUiExecutor;
  const uploads = () => fake.requestCounts.get('POST /upload/image') ?? 0;
  beforeEach(async () => {
    fake = await startFakeComfyUI({ executionMs: 0 });
    executor = new ComfyUiExecutor({ urls: [fake.url], probeIntervalMs: 100 });
    await executor.probe();
  });
  afterEach(async () => {
    await executor.close();
    await fake.close();
  });

  it('uploads an asset once for every run using it on that server, and another asset on its own', async () => {
    for (let n = 1; n <= 3; n += 1) expect((await executor.submit(fake.url, job(n))).accepted).to.equal(true);
    expect(uploads()).to.equal(1);
    expect((await executor.submit(fake.url, job(4, 'cccccccc-0000-4000-8000-000000000002'))).accepted).to.equal(true);
    expect(uploads()).to.equal(2);
    const loaded = fake.prompts.map((p) => (p.prompt as Record<string, { inputs: { image: string } }>)['1']?.inputs.image);
    expect(loaded.slice(0, 3), 'the same file each time').to.deep.equal(Array(3).fill('runload/cccccccc-0000-4000-8000-000000000001.png'));
  });

  it('uploads it again after the server restarted (it may be another machine with an empty input folder)', async () => {
    expect((await executor.submit(fake.url, job(1))).accepted).to.equal(true);
    await fake.restart();
    let n = 1;
    // Sent again once the executor has seen the restart (its socket reconnected).
    await until(async () => {
      n += 1;
      // A connection kept alive across the restart may fail once.
      const accepted = await executor.submit(fake.url, job(n)).then((r) => r.accepted, () => false);
      return accepted && uploads() === 2;
    }, 'the upload after the restart');
  });
});
