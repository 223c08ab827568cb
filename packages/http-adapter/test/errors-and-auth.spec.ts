/** Every documented error case, whole bodies compared, on both transports. */
import { expect } from 'chai';
import { CoreError } from '@runload/core';
import { UnavailableExecutor } from '@runload/core/testing';
import { jsonInit, makeHarness, TRANSPORTS, type Harness } from './harness.js';

for (const transport of TRANSPORTS) {
  describe(`HTTP errors and authentication (${transport})`, () => {
    let h: Harness;
    let u: Awaited<ReturnType<Harness['user']>>;
    beforeEach(async () => {
      h = await makeHarness(transport);
      u = await h.user();
    });
    afterEach(() => h.close());

    const run = (body: unknown, headers = u.auth, id = h.appVersionId) => h.request(`/api/v1/apps/${id}`, jsonInit(body, headers));

    it('401 Missing API key, with WWW-Authenticate, also for a key in the query string', async () => {
      for (const path of [`/api/v1/account`, `/api/v1/account?api_key=${u.key}`, `/api/v1/runs?key=${u.key}`]) {
        const res = await h.request(path);
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.equal('Bearer');
        expect(await res.json()).to.deep.equal({ error: 'Missing API key' });
      }
    });

    it('401 Invalid API key for malformed, unknown and revoked keys', async () => {
      await h.api.apiKeys.revoke(u.keyId);
      for (const key of ['garbage', 'rl_short_x', u.key, `Basic ${u.key}`]) {
        const res = await h.request('/api/v1/account', { headers: { authorization: key.startsWith('Basic') ? key : `Bearer ${key}` } });
        expect(res.status).to.equal(401);
        const body = await res.json();
        expect(body).to.deep.equal(key.startsWith('Basic') ? { error: 'Missing API key' } : { error: 'Invalid API key' });
        expect(res.headers.get('x-ratelimit-minute-limit')).to.equal('30');
      }
    });

    it('403 Account suspended on every endpoint, effective at once', async () => {
      await h.api.accounts.suspend(u.accountId);
      for (const res of [await h.request('/api/v1/account', { headers: u.auth }), await run({ inputs: {} })]) {
        expect(res.status).to.equal(403);
        expect(await res.json()).to.deep.equal({ error: 'Account suspended' });
      }
    });

    it('429 after too many failed authentications from one address', async () => {
      let last: Response | null = null;
      for (let i = 0; i < 31; i += 1) last = await h.request('/api/v1/account', { headers: { authorization: 'Bearer rl_nope' } });
      expect(last?.status).to.equal(429);
      expect(last?.headers.get('retry-after')).to.equal('60');
      expect(await last?.json()).to.deep.equal({ error: { code: 'RATE_LIMITED', message: 'Too many failed authentication attempts from this address', retry_after: 60 } });
      expect(last?.headers.get('x-ratelimit-minute-remaining')).to.equal('0');
    });

    it('400 INVALID_REQUEST for malformed JSON, a non-object body, and a missing or non-object inputs', async () => {
      const cases: [unknown, string][] = [
        ['{"inputs": ', 'The request body is not valid JSON'],
        ['[1,2]', 'The request body must be a JSON object'],
        ['"text"', 'The request body must be a JSON object'],
        ['{}', 'The request body needs an "inputs" object'],
        ['{"inputs": [1]}', '"inputs" must be an object keyed <nodeId>:<widgetName>'],
        ['', 'The request body must be a JSON object with an "inputs" object'],
      ];
      for (const [body, message] of cases) {
        const res = await run(body);
        expect(res.status, String(body)).to.equal(400);
        const json = (await res.json()) as { error: { code: string; message: string } };
        expect(json.error.code).to.equal('INVALID_REQUEST');
        expect(json.error.message).to.contain(message);
        expect(Object.keys(json.error)).to.deep.equal(['code', 'message']);
      }
    });

    it('400 INVALID_REQUEST for a body nested past 64 levels, with or without an Idempotency-Key, and no run', async () => {
      const deep = (levels: number) => `{"inputs":{},"x":${'['.repeat(levels)}${']'.repeat(levels)}}`;
      const before = (await h.ports.runs.listByAccount(u.accountId, { limit: 100 })).runs.length;
      for (const headers of [{}, { 'idempotency-key': 'deep-1' }]) {
        const res = await h.request(`/api/v1/apps/${h.appVersionId}`, { method: 'POST', headers: { ...u.auth, ...headers, 'content-type': 'application/json' }, body: deep(5000) });
        expect(res.status).to.equal(400);
        expect(await res.json()).to.deep.equal({ error: { code: 'INVALID_REQUEST', message: 'The request body nests arrays and objects more than 64 levels deep' } });
      }
      expect((await h.ports.runs.listByAccount(u.accountId, { limit: 100 })).runs.length).to.equal(before);
      // 64 levels in all (the body object, then 63 arrays) is read as any body (its inputs are all defaults).
      const res = await run(deep(63));
      expect(res.status).to.equal(201);
    });

    it('400 INVALID_REQUEST for POST /runs without a string app_version_id', async () => {
      const res = await h.request('/api/v1/runs', jsonInit({ inputs: {}, app_version_id: 7 }, u.auth));
      expect(res.status).to.equal(400);
      expect(await res.json()).to.deep.equal({ error: { code: 'INVALID_REQUEST', message: 'The request body needs "app_version_id" as a string' } });
    });

    it('413 PAYLOAD_TOO_LARGE for a 10 MB JSON body', async () => {
      const res = await run(JSON.stringify({ inputs: { '2:blur_radius': 'x'.repeat(10 * 1024 * 1024) } }));
      expect(res.status).to.equal(413);
      expect(await res.json()).to.deep.equal({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'The JSON body is larger than 1048576 bytes' } });
    });

    it('413 PAYLOAD_TOO_LARGE for a JSON body over 1 MiB sent without a length, then the next call is served', async () => {
      const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{"inputs":{"2:blur_radius":"'));
          if (sent >= 32) return controller.close(); // 2 MiB in all
          sent += 1;
          controller.enqueue(chunk);
        },
      });
      const init = { method: 'POST', headers: { ...u.auth, 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit;
      const res = await h.request(`/api/v1/apps/${h.appVersionId}`, init);
      expect(res.status).to.equal(413);
      expect(await res.json()).to.deep.equal({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'The JSON body is larger than 1048576 bytes' } });
      expect((await run({ inputs: {} })).status).to.equal(201);
    });

    it('422 INVALID_INPUT listing every bad key', async () => {
      const res = await run({ inputs: { '9:nope': 1, '2:blur_radius': 'big', '1:image': '00000000-0000-4000-8000-000000000000', noColon: 1 } });
      expect(res.status).to.equal(422);
      expect(await res.json()).to.deep.equal({
        error: {
          code: 'INVALID_INPUT',
          message: `4 input(s) do not fit app version ${h.appVersionId}`,
          details: [
            { key: '9:nope', reason: 'unknown input for this app version' },
            { key: '2:blur_radius', reason: 'expected a number, got a string' },
            { key: 'noColon', reason: 'keys have the form <nodeId>:<widgetName>' },
            { key: '1:image', reason: 'no image asset with this id' },
          ],
        },
      });
    });

    it('404 APP_VERSION_NOT_FOUND and 410 APP_DELETED name the id, on the run and metadata endpoints', async () => {
      const missing = '11111111-2222-4333-8444-555555555555';
      for (const res of [await run({ inputs: {} }, u.auth, missing), await h.request(`/api/v1/apps/${missing}`, { headers: u.auth })]) {
        expect(res.status).to.equal(404);
        expect(await res.json()).to.deep.equal({ error: { code: 'APP_VERSION_NOT_FOUND', message: `App version ${missing} not found` } });
      }
      const notUuid = await h.request('/api/v1/apps/not-a-uuid', { headers: u.auth });
      expect(notUuid.status).to.equal(404);
      await h.api.apps.delete(h.appVersionId);
      for (const res of [await run({ inputs: {} }), await h.request(`/api/v1/apps/${h.appVersionId}`, { headers: u.auth })]) {
        expect(res.status).to.equal(410);
        expect(await res.json()).to.deep.equal({ error: { code: 'APP_DELETED', message: `App version ${h.appVersionId} has been deleted` } });
      }
    });

    it('404 RUN_NOT_FOUND and ASSET_NOT_FOUND, for unknown and malformed ids', async () => {
      for (const id of ['11111111-2222-4333-8444-555555555555', '..%2F..%2Fetc', 'abc']) {
        const r = await h.request(`/api/v1/runs/${id}`, { headers: u.auth });
        expect(r.status).to.equal(404);
        expect(((await r.json()) as { error: { code: string } }).error.code).to.equal('RUN_NOT_FOUND');
        const a = await h.request(`/api/v1/assets/${id}`, { headers: u.auth });
        expect(a.status).to.equal(404);
        expect(((await a.json()) as { error: { code: string } }).error.code).to.equal('ASSET_NOT_FOUND');
      }
    });

    it('404 NOT_FOUND for unknown routes and 405 METHOD_NOT_ALLOWED with Allow', async () => {
      const unknown = await h.request('/api/v1/nope', { headers: u.auth });
      expect(unknown.status).to.equal(404);
      expect(await unknown.json()).to.deep.equal({ error: { code: 'NOT_FOUND', message: 'No route for GET /api/v1/nope' } });
      expect(unknown.headers.get('x-request-id')).to.be.a('string');
      expect(unknown.headers.get('x-ratelimit-minute-limit')).to.equal('120');
      const anonymous = await h.request('/api/v1/nope');
      expect(anonymous.status).to.equal(401);
      const outside = await h.request('/elsewhere');
      expect(outside.status).to.equal(404);
      expect(await outside.json()).to.deep.equal({ error: { code: 'NOT_FOUND', message: 'No route for GET /elsewhere' } });
      const wrong = await h.request('/api/v1/account', { method: 'DELETE', headers: u.auth });
      expect(wrong.status).to.equal(405);
      expect(wrong.headers.get('allow')).to.equal('GET, HEAD');
      expect(await wrong.json()).to.deep.equal({ error: { code: 'METHOD_NOT_ALLOWED', message: 'DELETE is not allowed on /api/v1/account; use GET, HEAD' } });
    });

    it('503 SERVICE_UNAVAILABLE with Retry-After when no backend is reachable', async () => {
      await h.close();
      h = await makeHarness(transport, { executor: new UnavailableExecutor() });
      u = await h.user();
      const res = await run({ inputs: {} });
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('5');
      expect(await res.json()).to.deep.equal({ error: { code: 'SERVICE_UNAVAILABLE', message: 'The execution backend is unreachable; try again shortly' } });
      expect(res.headers.get('x-ratelimit-hour-remaining')).to.equal('100');
    });

    it('500 INTERNAL_ERROR without a stack when something unexpected breaks', async () => {
      h.ports.runs.get = async () => {
        throw new Error('secret internals at /srv/db.ts:42');
      };
      const res = await h.request('/api/v1/runs/11111111-2222-4333-8444-555555555555', { headers: u.auth });
      expect(res.status).to.equal(500);
      expect(await res.json()).to.deep.equal({ error: { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred' } });
    });

    it('503 SERVICE_UNAVAILABLE with Retry-After when the database is unreachable', async () => {
      h.ports.runs.get = async () => {
        throw new CoreError('STORAGE_UNAVAILABLE', 'The database is unreachable');
      };
      const res = await h.request('/api/v1/runs/11111111-2222-4333-8444-555555555555', { headers: u.auth });
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('5');
      expect(await res.json()).to.deep.equal({ error: { code: 'SERVICE_UNAVAILABLE', message: 'The database is unreachable; try again shortly' } });
    });

    it('gives every response an X-Request-Id and keeps a sane one the client sent', async () => {
      const res = await h.request('/api/v1/account', { headers: { ...u.auth, 'x-request-id': 'trace-123' } });
      expect(res.headers.get('x-request-id')).to.equal('trace-123');
      const health = await h.request('/healthz');
      expect(health.status).to.equal(200);
      expect(await health.json()).to.deep.equal({ status: 'ok', database: { ok: true } });
    });
  });
}
