/** startHttpServer: the bound address, and a close that lets requests in flight finish, within a bound. */
import { expect } from 'chai';
import http from 'node:http';
import { H3 } from 'h3';
import { startHttpServer, toNodeListener } from '@runload/http-adapter';

/** `/slow` answers once `release` settles; `arrived` is told when the request reached the handler. */
function slowApp(release: Promise<void>, arrived: () => void = () => undefined): H3 {
  const app = new H3();
  app.get('/slow', async () => {
    arrived();
    await release;
    return { done: true };
  });
  app.get('/fast', () => ({ fast: true }));
  return app;
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('startHttpServer', () => {
  it('binds a free port on the given host and reports it', async () => {
    const server = await startHttpServer(slowApp(Promise.resolve()), { host: '127.0.0.1', port: 0 });
    expect(server.port).to.be.above(0);
    expect(server.url).to.equal(`http://127.0.0.1:${server.port}`);
    expect(await get(`${server.url}/fast`)).to.deep.equal({ status: 200, body: '{"fast":true}' });
    await server.close();
  });

  it('stops accepting at close but finishes the request in flight', async () => {
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((r) => (arrived = r));
    const server = await startHttpServer(slowApp(new Promise<void>((r) => (release = r)), arrived), { host: '127.0.0.1', port: 0 });
    const inFlight = get(`${server.url}/slow`);
    await reached;
    let closed = false;
    const closing = server.close(5000).then(() => (closed = true));
    const refused = await get(`${server.url}/fast`).then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(refused).to.equal('ECONNREFUSED');
    expect(closed, 'close waits for the request in flight').to.equal(false);
    release();
    expect(await inFlight).to.deep.equal({ status: 200, body: '{"done":true}' });
    await closing;
    expect(closed).to.equal(true);
  });

  it('cuts what is still running once the grace period is over', async () => {
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((r) => (arrived = r));
    const server = await startHttpServer(slowApp(new Promise<void>(() => undefined), arrived), { host: '127.0.0.1', port: 0 });
    const inFlight = get(`${server.url}/slow`).then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    await reached;
    await server.close(100);
    expect(await inFlight).to.equal('ECONNRESET');
  });

  it('closes a connection that carries nothing for its idle time (a stalled body), not one whose response keeps sending', async () => {
    const app = new H3();
    let bodyEnded = false;
    app.post('/upload', async (event) => {
      const req = event.runtime?.node?.req as http.IncomingMessage;
      await new Promise<void>((resolve) => req.on('end', () => ((bodyEnded = true), resolve())).on('close', () => resolve()).resume());
      return { ok: true };
    });
    app.get('/ticks', () => {
      // Ten ticks, 50 ms apart: 500 ms in all, longer than the idle time but never idle.
      let n = 0;
      return new ReadableStream<string>({
        async pull(controller) {
          await new Promise((r) => setTimeout(r, 50));
          if ((n += 1) > 10) controller.close();
          else controller.enqueue('tick\n');
        },
      });
    });
    const server = await startHttpServer(app, { host: '127.0.0.1', port: 0, idleTimeoutMs: 200 });
    try {
      const stalled = http.request(`${server.url}/upload`, { method: 'POST', headers: { 'content-length': '1000' } });
      const outcome = new Promise<string>((resolve) => {
        stalled.on('response', (res) => resolve(`answered ${res.statusCode}`));
        stalled.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
      stalled.write('x'.repeat(100)); // a tenth of the body, then nothing
      expect(await outcome).to.equal('ECONNRESET');
      expect(bodyEnded).to.equal(false);
      expect(await get(`${server.url}/ticks`)).to.deep.equal({ status: 200, body: 'tick\n'.repeat(10) });
    } finally {
      await server.close();
    }
  });

  it('calls onClosing as the close begins, and resolves the close only once it is done', async () => {
    let finishCleanup!: () => void;
    const cleanup = new Promise<void>((resolve) => (finishCleanup = resolve));
    let called = 0;
    const server = await startHttpServer(slowApp(Promise.resolve()), {
      host: '127.0.0.1',
      port: 0,
      onClosing: () => {
        called += 1;
        return cleanup;
      },
    });
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    expect(called).to.equal(1);
    // Nothing is connected, so the server itself is closed within a turn of the event loop.
    await new Promise<void>((resolve) => server.server.once('close', () => resolve()));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed, 'the close resolved before onClosing was done').to.equal(false);
    finishCleanup();
    await closing;
    expect(closed).to.equal(true);
  });

  it('offers the app as a plain node:http listener', async () => {
    const server = http.createServer(toNodeListener(slowApp(Promise.resolve())));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    expect(await get(`http://127.0.0.1:${port}/fast`)).to.deep.equal({ status: 200, body: '{"fast":true}' });
    await new Promise((r) => server.close(r));
  });
});
