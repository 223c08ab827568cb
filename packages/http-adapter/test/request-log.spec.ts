/** Every log line a request causes carries that request's id (the one in `X-Request-Id`), its method and path. */
import { expect } from 'chai';
import { makeHarness, type Harness } from './harness.js';

interface Line {
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

describe('request-scoped logging', function () {
  this.timeout(30_000);
  let h: Harness;
  let logged: Line[];
  beforeEach(async () => {
    logged = [];
    h = await makeHarness('node', { log: (level, message, fields = {}) => logged.push({ level, message, fields }) });
  });
  afterEach(() => h.close());

  it('binds the request id, method and path to the lines of a refused upload', async () => {
    const u = await h.user();
    const res = await fetch(`${h.url}/api/v1/assets`, { method: 'POST', headers: { ...u.auth, 'content-type': 'text/plain' }, body: 'not a form' });
    expect(res.status).to.equal(400);
    const requestId = res.headers.get('x-request-id');
    expect(requestId, 'X-Request-Id header').to.be.a('string').and.not.equal('');
    const lines = logged.filter((l) => l.message === 'upload refused');
    expect(lines).to.have.length(1);
    expect(lines[0]?.fields).to.include({ requestId, method: 'POST', path: '/api/v1/assets', status: 400 });
  });

  it('writes every line of one request under the id of its X-Request-Id, without the call site adding it', async () => {
    const u = await h.user();
    logged = [];
    const res = await fetch(`${h.url}/api/v1/assets`, { method: 'POST', headers: { ...u.auth, 'content-type': 'text/plain' }, body: 'not a form' });
    expect(res.status).to.equal(400);
    await res.arrayBuffer();
    const requestId = res.headers.get('x-request-id');
    expect(logged, 'lines logged while the request was served').to.not.deep.equal([]);
    expect(logged.map((l) => [l.message, l.fields['requestId'], l.fields['method'], l.fields['path']])).to.deep.equal(
      logged.map((l) => [l.message, requestId, 'POST', '/api/v1/assets']),
    );
  });

  it('logs a failing health check under the id /healthz answered with', async () => {
    await h.close();
    logged = [];
    h = await makeHarness('node', {
      log: (level, message, fields = {}) => logged.push({ level, message, fields }),
      health: async () => {
        throw new Error('database gone');
      },
    });
    const res = await fetch(`${h.url}/healthz`);
    expect(res.status).to.equal(503);
    const line = logged.find((l) => l.message === 'health check failed');
    expect(line?.fields).to.include({ requestId: res.headers.get('x-request-id'), method: 'GET', path: '/healthz' });
  });

  it('keeps the lines of concurrent requests apart, each with its own id', async () => {
    const u = await h.user();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${h.url}/api/v1/assets`, { method: 'POST', headers: { ...u.auth, 'content-type': 'application/json' }, body: '{}' })),
    );
    const ids = answers.map((a) => a.headers.get('x-request-id'));
    expect(new Set(ids).size, 'distinct request ids').to.equal(5);
    const loggedIds = logged.filter((l) => l.message === 'upload refused').map((l) => l.fields['requestId']);
    expect([...loggedIds].sort()).to.deep.equal([...ids].sort());
  });

  it('keeps an id the client sent, so its own logs and ours line up', async () => {
    const u = await h.user();
    const res = await fetch(`${h.url}/api/v1/assets`, { method: 'POST', headers: { ...u.auth, 'content-type': 'text/plain', 'x-request-id': 'client-trace-42' }, body: 'x' });
    expect(res.headers.get('x-request-id')).to.equal('client-trace-42');
    expect(logged.find((l) => l.message === 'upload refused')?.fields['requestId']).to.equal('client-trace-42');
  });
});
