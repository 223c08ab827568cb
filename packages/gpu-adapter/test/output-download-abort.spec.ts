/**
 * An output's download is aborted by the caller's signal at any point: while it drips in (one byte
 * a second, never idle long enough to fail on its own), the read fails at once when the signal
 * aborts, and the backend's connection is closed.
 */
import { expect } from 'chai';
import { makePng, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { ComfyUiExecutor } from '@runload/gpu-adapter';

describe('an output download aborted by its signal', function () {
  this.timeout(20_000);
  let fake: FakeComfyUI;
  let executor: ComfyUiExecutor;
  const ref = { nodeId: '9', filename: 'drip.png', subfolder: '', type: 'input' };

  beforeEach(async () => {
    fake = await startFakeComfyUI();
    executor = new ComfyUiExecutor({ urls: [fake.url] });
    await executor.probe();
    const form = new FormData();
    form.append('image', new Blob([makePng(16, 16, () => [1, 2, 3, 255])]), 'drip.png');
    expect((await fetch(`${fake.url}/upload/image`, { method: 'POST', body: form })).status).to.equal(200);
    fake.setViewDrip(1000);
  });

  afterEach(async () => {
    await executor.close();
    await fake.close();
  });

  it('fails the read as soon as the signal aborts, after the first bytes came', async () => {
    const stop = new AbortController();
    const out = await executor.fetchOutput(fake.url, ref, { signal: stop.signal });
    let received = 0;
    const reading = (async () => {
      for await (const chunk of await out.open()) {
        received += chunk.byteLength;
        if (received === 1) stop.abort(new Error('stopping'));
      }
    })();
    const started = Date.now();
    const error = await reading.then(() => null, (e: unknown) => e);
    expect(error, 'the read fails').to.be.instanceOf(Error);
    expect(received, 'one byte came before the abort').to.equal(1);
    expect(Date.now() - started, 'well before the file could have dripped in').to.be.below(5000);
  });

  it('fails at once when the signal aborted before the download began', async () => {
    const error = await executor.fetchOutput(fake.url, ref, { signal: AbortSignal.abort(new Error('stopping')) }).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(Error);
  });
});
