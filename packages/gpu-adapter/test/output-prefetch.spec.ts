/** Output files downloaded as the socket announces them: which ones, handed over once, and stopped with their taker. */
import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { Readable } from 'node:stream';
import { OutputPrefetch, viewPath } from '../src/output-prefetch.js';

const file = (filename: string, type = 'output') => ({ filename, subfolder: '', type });

function prefetchRecording() {
  const requested = new Map<string, AbortSignal>();
  const prefetch = new OutputPrefetch(async (path, signal) => {
    requested.set(path, signal);
    return { contentType: 'image/png', body: Readable.from([Buffer.from('png')]) };
  });
  return { prefetch, requested };
}

describe('output files downloaded as the socket announces them', () => {
  it('requests the files of type output a message names, not previews, and not twice', () => {
    const { prefetch, requested } = prefetchRecording();
    const message = { node: '9', output: { images: [file('a.png'), file('preview.png', 'temp')], text: ['not a file'] } };
    prefetch.onExecuted(message);
    prefetch.onExecuted(message);
    expect([...requested.keys()]).to.deep.equal([viewPath(file('a.png'))]);
    prefetch.close();
  });

  it('keeps at most 16 downloads waiting to be taken', () => {
    const { prefetch, requested } = prefetchRecording();
    for (let node = 0; node < 10; node += 1) prefetch.onExecuted({ node: String(node), output: { images: [file(`${node}-a.png`), file(`${node}-b.png`)] } });
    expect(requested.size).to.equal(16);
    prefetch.close();
  });

  it('hands a download over once, and aborts it when the taker aborts', async () => {
    const { prefetch, requested } = prefetchRecording();
    prefetch.onExecuted({ node: '9', output: { images: [file('a.png')] } });
    const stop = new AbortController();
    const taken = prefetch.take(viewPath(file('a.png')), stop.signal);
    expect((await taken)?.contentType).to.equal('image/png');
    expect(prefetch.take(viewPath(file('a.png'))), 'taken already').to.equal(null);
    expect(requested.get(viewPath(file('a.png')))?.aborted).to.equal(false);
    stop.abort();
    expect(requested.get(viewPath(file('a.png')))?.aborted, 'the download stops with its taker').to.equal(true);
  });

  it("leaves no listener on the taker's signal once the download is read", async () => {
    const { prefetch } = prefetchRecording();
    const stopping = new AbortController();
    for (const name of ['a.png', 'b.png']) {
      prefetch.onExecuted({ node: '9', output: { images: [file(name)] } });
      const res = await prefetch.take(viewPath(file(name)), stopping.signal);
      for await (const chunk of res?.body ?? []) expect(chunk).to.be.instanceOf(Buffer);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(getEventListeners(stopping.signal, 'abort')).to.have.length(0);
  });

  it('lets every download go when the server is closed', () => {
    const { prefetch, requested } = prefetchRecording();
    prefetch.onExecuted({ node: '9', output: { images: [file('a.png'), file('b.png')] } });
    prefetch.close();
    expect([...requested.values()].map((s) => s.aborted)).to.deep.equal([true, true]);
    expect(prefetch.take(viewPath(file('a.png')))).to.equal(null);
  });
});
