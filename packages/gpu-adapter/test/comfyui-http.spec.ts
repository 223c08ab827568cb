/** Calls to a ComfyUI server keep their connection, and a kept connection the server drops costs no GET. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getEventListeners } from 'node:events';
import { expect } from 'chai';
import { ComfyUiHttp } from '../src/comfyui-http.js';

interface TestServer {
  readonly url: string;
  readonly server: Server;
  /** Connections opened so far. */
  connections: number;
  /** Requests whose connection is cut on arrival, by order of arrival (1-based). */
  readonly cut: Set<number>;
  close(): Promise<void>;
}

async function startServer(): Promise<TestServer> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    requests += 1;
    if (t.cut.has(requests)) {
      req.socket.destroy(); // as a server closing a kept connection just as a request arrives
      return;
    }
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/view')) {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.from([137, 80, 78, 71]));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, method: req.method }));
    });
  });
  server.on('connection', (socket) => {
    t.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const t: TestServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    connections: 0,
    cut: new Set(),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return t;
}

async function drain(body: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const chunk of body) n += (chunk as Buffer).length;
  return n;
}

describe('HTTP calls to a ComfyUI server', () => {
  it('send one call after another over one kept connection, JSON and downloads alike', async () => {
    const t = await startServer();
    const http = new ComfyUiHttp(t.url, 5000);
    try {
      for (let i = 0; i < 10; i += 1) {
        expect(await http.getJson(`/history/${i}`)).to.deep.equal({ path: `/history/${i}`, method: 'GET' });
        expect((await http.request('POST', '/prompt', { prompt: {} })).body).to.deep.equal({ path: '/prompt', method: 'POST' });
        const download = await http.stream('/view?filename=a.png', 5000);
        expect(download.contentType).to.equal('image/png');
        expect(await drain(download.body)).to.equal(4);
      }
      expect(t.connections, '30 calls').to.equal(1);
    } finally {
      http.close();
      await t.close();
    }
  });

  it('sends a GET again when the server drops the kept connection it arrived on, and reports a POST', async () => {
    const t = await startServer();
    const http = new ComfyUiHttp(t.url, 5000);
    try {
      await http.getJson('/queue');
      t.cut.add(2);
      expect(await http.getJson('/queue'), 'answered on a new connection').to.deep.equal({ path: '/queue', method: 'GET' });
      expect(t.connections).to.equal(2);
      // A POST may have been read before the cut: never sent twice; the caller asks the server instead.
      t.cut.add(4);
      const refused = await http.request('POST', '/prompt', { prompt: {} }).then(
        () => null,
        (error: Error & { code?: string }) => error,
      );
      expect(refused?.code).to.equal('SERVICE_UNAVAILABLE');
      expect(refused?.message).to.match(/is unreachable \(POST \/prompt\)/);
    } finally {
      http.close();
      await t.close();
    }
  });

  it('reaches a server mounted under a path, as behind a proxy', async () => {
    const t = await startServer();
    const http = new ComfyUiHttp(`${t.url}/comfy/`, 5000);
    try {
      expect(await http.getJson('/queue')).to.deep.equal({ path: '/comfy/queue', method: 'GET' });
    } finally {
      http.close();
      await t.close();
    }
  });

  it('closes the connection of a download its reader lets go, rather than holding it', async () => {
    let closed: () => void = () => undefined;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const server = createServer((req, res) => {
      req.socket.once('close', () => closed());
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(64 * 1024 * 1024) });
      res.write(Buffer.alloc(1024 * 1024)); // far more than a reader's buffer, then the rest never
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const http = new ComfyUiHttp(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 5000);
    try {
      const { body } = await http.stream('/view?filename=a.png', 600_000, 60_000);
      for await (const chunk of body) {
        void chunk;
        break; // the reader stops at its first piece
      }
      await connectionClosed;
    } finally {
      http.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("adds no listener to a caller's long-lived signal per download, and its abort still stops each", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '1000' });
      res.write(Buffer.alloc(10)); // and the rest never: each download stays under way
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const http = new ComfyUiHttp(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 5000);
    try {
      const stopping = new AbortController();
      const downloads = await Promise.all(Array.from({ length: 12 }, (_, i) => http.stream(`/view?filename=${i}.png`, 600_000, 60_000, stopping.signal)));
      // Node warns of a leak past ten listeners on one signal: a dispatcher's outlives every download.
      expect(getEventListeners(stopping.signal, 'abort')).to.have.length(0);
      const reads = downloads.map(async ({ body }) => {
        for await (const chunk of body) void chunk;
      });
      stopping.abort(new Error('stopping'));
      const outcomes = await Promise.allSettled(reads);
      expect(outcomes.map((o) => o.status)).to.deep.equal(downloads.map(() => 'rejected'));
    } finally {
      http.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reports a server that does not answer in time as unreachable', async () => {
    const server = createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const http = new ComfyUiHttp(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 100);
    try {
      const error = await http.getJson('/system_stats').then(
        () => null,
        (e: Error & { code?: string }) => e,
      );
      expect(error?.code).to.equal('SERVICE_UNAVAILABLE');
      expect(error?.message).to.match(/unreachable \(GET \/system_stats\)/);
    } finally {
      http.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('fails a download once nothing moved for its idle time: no answer at all, or a body that stops midway', async () => {
    let stallBody = false;
    const server = createServer((req, res) => {
      if (!stallBody) return; // never answers
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '1000' });
      res.write(Buffer.alloc(100)); // a tenth, then nothing
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const http = new ComfyUiHttp(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 5000);
    try {
      const started = Date.now();
      const unanswered = await http.stream('/view?filename=a.png', 600_000, 200).then(
        () => null,
        (e: Error & { code?: string }) => e,
      );
      expect(unanswered?.code).to.equal('SERVICE_UNAVAILABLE');
      expect(unanswered?.message).to.match(/unreachable \(GET \/view\?filename=a\.png\): nothing received for 200 ms/);
      stallBody = true;
      const { body } = await http.stream('/view?filename=a.png', 600_000, 200);
      const read = await (async () => {
        for await (const chunk of body) void chunk;
      })().then(
        () => 'read to the end',
        (e: Error) => e.message,
      );
      expect(read).to.equal('nothing received for 200 ms');
      expect(Date.now() - started, 'both within their idle time, not the 10-minute total').to.be.below(5000);
    } finally {
      http.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
