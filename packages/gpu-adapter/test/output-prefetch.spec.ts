/** Output files downloaded as the socket announces them: which ones, handed over once, and stopped with their taker. */
import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { ComfyUiHttp } from '../src/comfyui-http.js';
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

  it('aborts at once a download taken by a taker that has stopped already', () => {
    const { prefetch, requested } = prefetchRecording();
    prefetch.onExecuted({ node: '9', output: { images: [file('a.png')] } });
    expect(prefetch.take(viewPath(file('a.png')), AbortSignal.abort(new Error('stopping')))).to.not.equal(null);
    expect(requested.get(viewPath(file('a.png')))?.aborted).to.equal(true);
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

  it("adds no listener to the taker's signal however many of its downloads are under way, and still stops them all with it", async () => {
    const { prefetch, requested } = prefetchRecording();
    const stopping = new AbortController();
    const names = Array.from({ length: 16 }, (_, i) => `${i}.png`);
    for (const name of names) prefetch.onExecuted({ node: '9', output: { images: [file(name)] } });
    const taken = names.map((name) => prefetch.take(viewPath(file(name)), stopping.signal));
    await Promise.all(taken);
    // Node warns of a leak past ten listeners on one signal: a dispatcher's outlives every download.
    expect(getEventListeners(stopping.signal, 'abort')).to.have.length(0);
    stopping.abort();
    expect(names.map((name) => requested.get(viewPath(file(name)))?.aborted)).to.deep.equal(names.map(() => true));
  });

  it('lets every download go when the server is closed', () => {
    const { prefetch, requested } = prefetchRecording();
    prefetch.onExecuted({ node: '9', output: { images: [file('a.png'), file('b.png')] } });
    prefetch.close();
    expect([...requested.values()].map((s) => s.aborted)).to.deep.equal([true, true]);
    expect(prefetch.take(viewPath(file('a.png')))).to.equal(null);
  });
});

describe('a download begun ahead and let go mid-answer', () => {
  it('ends without an error nobody hears (the process would die of it)', async () => {
    let connectionClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (connectionClosed = resolve));
    // Answers the headers and a first byte, then nothing more: a download under way.
    const server = createServer((req, res) => {
      req.socket.once('close', connectionClosed);
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write('p');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new ComfyUiHttp(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 5000, null);
    let answered: () => void = () => undefined;
    const answer = new Promise<void>((resolve) => (answered = resolve));
    const prefetch = new OutputPrefetch(async (path, signal) => {
      const res = await client.stream(path, 60_000, 30_000, signal);
      answered();
      return res;
    });
    prefetch.onExecuted({ node: '9', output: { images: [file('a.png')] } });
    await answer;
    prefetch.close();
    await closed;
    // An error event nobody listens to is thrown on a later turn: give it those turns.
    for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
