/** Media inputs go to ComfyUI as they are read from the blob store, never whole in memory. */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { makePng, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { ComfyUiExecutor } from '@runload/gpu-adapter';

const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'runload' } },
};

describe('media inputs uploaded to ComfyUI', function () {
  this.timeout(60_000);
  let fake: FakeComfyUI;
  let executor: ComfyUiExecutor;
  before(async () => {
    fake = await startFakeComfyUI({ executionMs: 0 });
    executor = new ComfyUiExecutor({ urls: [fake.url], probeIntervalMs: 100 });
    await executor.probe();
  });
  after(async () => {
    await executor.close();
    await fake.close();
  });

  it('streams a 48 MiB file: reading keeps pace with the server, and the server receives every byte', async () => {
    const png = makePng(4, 4, () => [1, 2, 3, 255]);
    const chunk = Buffer.alloc(1024 * 1024, 9);
    const expected = createHash('sha256').update(png);
    for (let i = 0; i < 48; i += 1) expected.update(chunk);
    let pulled = 0;
    // The server holds the upload before reading it: a streaming client can only fill the socket's buffers meanwhile.
    fake.setDelays({ upload: 600 });
    // Not synchronisation: samples the bytes read 400 ms into the 600 ms hold, the window under test.
    const pulledWhileHeld = new Promise<number>((resolve) => setTimeout(() => resolve(pulled), 400));
    const result = await executor.submit(fake.url, {
      runId: '00000000-0000-4000-8000-0000000000aa',
      workflow: WORKFLOW,
      inputs: { '1:image': 'asset' },
      media: {
        '1:image': {
          assetId: 'bbbbbbbb-0000-4000-8000-000000000001',
          filename: 'big"\r\nname.png',
          contentType: 'image/png',
          open: async () =>
            (async function* () {
              yield png;
              for (let i = 0; i < 48; i += 1) {
                pulled += 1;
                yield chunk;
              }
            })(),
        },
      },
    });
    fake.setDelays({ upload: 0 });
    expect(result.accepted, JSON.stringify(result)).to.equal(true);
    expect(await pulledWhileHeld, 'MiB read from the blob store while the server held the upload').to.be.below(24);
    const stored = await fetch(`${fake.url}/view?filename=bbbbbbbb-0000-4000-8000-000000000001.png&subfolder=runload&type=input`);
    expect(stored.status).to.equal(200);
    const bytes = Buffer.from(await stored.arrayBuffer());
    expect(bytes.length).to.equal(png.length + 48 * 1024 * 1024);
    expect(createHash('sha256').update(bytes).digest('hex')).to.equal(expected.digest('hex'));
  });
});
