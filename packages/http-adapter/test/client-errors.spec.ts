/** Errors Node's HTTP server produces itself answer in the documented form with an X-Request-Id. */
import { expect } from 'chai';
import net from 'node:net';
import { H3 } from 'h3';
import { startHttpServer, type RunningHttpServer } from '@runload/http-adapter';
import { waitFor } from '@runload/core/testing';
import { makeHarness } from './harness.js';

/** Writes raw bytes and reads until the server closes the connection. */
function raw(server: RunningHttpServer, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(text);
  });
}

function parse(answer: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as unknown };
}

describe('errors of the HTTP server itself', () => {
  let server: RunningHttpServer;
  const logged: { level: string; message: string }[] = [];
  before(async () => {
    const app = new H3();
    app.get('/ok', () => ({ ok: true }));
    server = await startHttpServer(app, { host: '127.0.0.1', port: 0, headersTimeoutMs: 300, log: (level, message) => logged.push({ level, message }) });
  });
  after(() => server.close(1000));

  it('answers headers too large with 431 HEADERS_TOO_LARGE and an X-Request-Id', async () => {
    const answer = parse(await raw(server, `GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(answer.status).to.equal(431);
    expect(answer.body).to.deep.equal({ error: { code: 'HEADERS_TOO_LARGE', message: 'The request headers are too large' } });
    expect(answer.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    expect(answer.headers['content-type']).to.equal('application/json; charset=utf-8');
  });

  it('answers Content-Length with Transfer-Encoding with 400 INVALID_REQUEST', async () => {
    const answer = parse(await raw(server, 'POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'));
    expect(answer.status).to.equal(400);
    expect(answer.body).to.deep.equal({ error: { code: 'INVALID_REQUEST', message: 'The request could not be read' } });
    expect(answer.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
  });

  it('answers headers that never end with 408 REQUEST_TIMEOUT', async () => {
    const answer = parse(await raw(server, 'GET /ok HTTP/1.1\r\nHost: x\r\n'));
    expect(answer.status).to.equal(408);
    expect(answer.body).to.deep.equal({ error: { code: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time' } });
    expect(answer.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    expect(logged.every((l) => l.level === 'info')).to.equal(true);
  });
});

describe('a client that goes away mid-request', () => {
  it('is logged at info, never as an error', async () => {
    const logged: { level: string; message: string }[] = [];
    const h = await makeHarness('node', { log: (level, message) => logged.push({ level, message }) });
    const u = await h.user();
    const url = new URL(h.url as string);
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(url.port), '127.0.0.1', () => {
        socket.write(
          `POST /api/v1/apps/${h.appVersionId} HTTP/1.1\r\nHost: x\r\nAuthorization: ${u.auth['authorization']}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"inputs":',
        );
        // Gone once the server has started reading the body.
        setImmediate(() => socket.destroy());
        resolve();
      });
    });
    await waitFor(() => logged.some((l) => l.message === 'client went away'), "the 'client went away' log line");
    await h.close();
    expect(logged.filter((l) => l.message === 'client went away').map((l) => l.level)).to.deep.equal(['info']);
    expect(logged.filter((l) => l.level === 'error')).to.deep.equal([]);
  });
});
