/** The request pipeline around every route: request ids, key changes, client addresses, health, metadata. */
import { expect } from 'chai';
import { AUTH_CACHE_MS } from '@runload/core';
import { jsonInit, makeHarness, T0, TRANSPORTS, type Harness } from './harness.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const transport of TRANSPORTS) {
  describe(`HTTP pipeline (${transport})`, () => {
    let h: Harness;
    let u: Awaited<ReturnType<Harness['user']>>;
    beforeEach(async () => {
      h = await makeHarness(transport);
      u = await h.user();
    });
    afterEach(() => h.close());

    it('puts a fresh X-Request-Id on every kind of response and keeps only a sane incoming one', async () => {
      const answers = [
        await h.request('/api/v1/account', { headers: u.auth }),
        await h.request('/api/v1/account'),
        await h.request('/api/v1/nope', { headers: u.auth }),
        await h.request('/elsewhere'),
        await h.request('/api/v1/account', { method: 'DELETE', headers: u.auth }),
        await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit('{', u.auth)),
        await h.request('/healthz'),
      ];
      const ids = answers.map((res) => res.headers.get('x-request-id'));
      for (const id of ids) expect(id).to.match(UUID_V4);
      expect(new Set(ids).size).to.equal(ids.length);
      const insane = await h.request('/api/v1/account', { headers: { ...u.auth, 'x-request-id': 'a b<script>' } });
      expect(insane.headers.get('x-request-id')).to.match(UUID_V4);
      const sane = await h.request('/api/v1/nope', { headers: { ...u.auth, 'x-request-id': 'trace-42.a:b' } });
      expect(sane.headers.get('x-request-id')).to.equal('trace-42.a:b');
    });

    it('answers a path with a malformed escape as not found, in our form, never with h3 body', async () => {
      const run = await h.request('/api/v1/runs/%E0%A4%A', { headers: u.auth });
      expect(run.status).to.equal(404);
      expect(await run.json()).to.deep.equal({ error: { code: 'RUN_NOT_FOUND', message: 'Run %E0%A4%A not found' } });
      expect(run.headers.get('x-ratelimit-minute-limit')).to.equal('120');
      const app = await h.request('/api/v1/apps/%ZZ', { headers: u.auth });
      expect(app.status).to.equal(404);
      expect(await app.json()).to.deep.equal({ error: { code: 'APP_VERSION_NOT_FOUND', message: 'App version %ZZ not found' } });
      const outside = await h.request('/x/%E0');
      expect(outside.status).to.equal(404);
      expect(await outside.json()).to.deep.equal({ error: { code: 'NOT_FOUND', message: 'No route for GET /x/%E0' } });
      expect(outside.headers.get('x-request-id')).to.match(UUID_V4);
    });

    it('answers a run on a path id that is not a UUID with APP_VERSION_NOT_FOUND naming it', async () => {
      const res = await h.request('/api/v1/apps/not-a-uuid', jsonInit({ inputs: {} }, u.auth));
      expect(res.status).to.equal(404);
      expect(await res.json()).to.deep.equal({ error: { code: 'APP_VERSION_NOT_FOUND', message: 'App version not-a-uuid not found' } });
    });

    it('shows the failed-authentication window of the address to a caller without a valid key', async () => {
      const first = await h.request('/api/v1/account');
      expect(first.headers.get('x-ratelimit-minute-limit')).to.equal('30');
      expect(first.headers.get('x-ratelimit-minute-remaining')).to.equal('29');
      expect(first.headers.get('x-ratelimit-minute-reset')).to.equal(String((T0 + 60_000) / 1000));
      const second = await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit({ inputs: {} }, { authorization: 'Bearer rl_0123456789_nope' }));
      expect(second.status).to.equal(401);
      expect(second.headers.get('x-ratelimit-minute-remaining')).to.equal('28');
      expect(second.headers.get('x-ratelimit-hour-limit'), 'no account, so no run windows to show').to.equal(null);
    });

    it('applies a revoked key and a suspension within the authentication cache bound, and unsuspension too', async () => {
      expect((await h.request('/api/v1/account', { headers: u.auth })).status).to.equal(200);
      await h.api.accounts.suspend(u.accountId);
      h.clock.advance(AUTH_CACHE_MS);
      const suspended = await h.request('/api/v1/account', { headers: u.auth });
      expect(suspended.status).to.equal(403);
      expect(await suspended.json()).to.deep.equal({ error: 'Account suspended' });
      await h.api.accounts.unsuspend(u.accountId);
      expect((await h.request('/api/v1/account', { headers: u.auth })).status).to.equal(200);
      await h.api.apiKeys.revoke(u.keyId);
      h.clock.advance(AUTH_CACHE_MS);
      const revoked = await h.request('/api/v1/account', { headers: u.auth });
      expect(revoked.status).to.equal(401);
      expect(revoked.headers.get('www-authenticate')).to.equal('Bearer');
      expect(await revoked.json()).to.deep.equal({ error: 'Invalid API key' });
    });

    it('serves the metadata endpoint and the account in their documented shapes', async () => {
      const meta = await h.request(`/api/v1/apps/${h.appVersionId}`, { headers: u.auth });
      expect(meta.status).to.equal(200);
      const body = (await meta.json()) as { app_id: string };
      expect(body).to.deep.equal({
        app_version_id: h.appVersionId,
        app_id: body.app_id,
        name: 'blur',
        created_at: new Date(T0).toISOString(),
        inputs: [
          { key: '1:image', node_id: '1', widget: 'image', type: 'IMAGE', default: 'example.png' },
          { key: '2:blur_radius', node_id: '2', widget: 'blur_radius', type: 'FLOAT', default: 3 },
          { key: '2:sigma', node_id: '2', widget: 'sigma', type: 'FLOAT', default: 1.5 },
          { key: '3:filename_prefix', node_id: '3', widget: 'filename_prefix', type: 'STRING', default: 'out' },
        ],
      });
      expect(body.app_id).to.match(UUID_V4);
      const account = await h.request('/api/v1/account', { headers: u.auth });
      expect(await account.json()).to.deep.equal({
        account_id: u.accountId,
        name: 'user-starter',
        tier: 'starter',
        limits: { general_per_minute: 120, runs_per_minute: 10, runs_per_hour: 100, gpu_seconds_per_month: 3600 },
        gpu_seconds_used: 0,
        gpu_seconds_quota: 3600,
        quota_resets_at: '2026-04-01T00:00:00.000Z',
      });
    });

    it('answers /healthz without a key: 200 ok, or 503 unavailable with the failing parts', async () => {
      const ok = await h.request('/healthz');
      expect(ok.status).to.equal(200);
      expect(await ok.json()).to.deep.equal({ status: 'ok', database: { ok: true } });
      await h.close();
      h = await makeHarness(transport, { health: async () => ({ ok: false, database: { ok: false, error: 'unreachable' } }) });
      const down = await h.request('/healthz');
      expect(down.status).to.equal(503);
      expect(await down.json()).to.deep.equal({ status: 'unavailable', database: { ok: false, error: 'unreachable' } });
      await h.close();
      h = await makeHarness(transport, {
        health: async () => {
          throw new Error('probe crashed at /srv/x.ts:1');
        },
      });
      const broken = await h.request('/healthz');
      expect(broken.status).to.equal(503);
      expect(await broken.json()).to.deep.equal({ status: 'unavailable' });
    });

    it('answers /healthz 200 with status degraded while no backend is reachable (reads still work)', async () => {
      await h.close();
      const backends = { available: false, backends: [{ id: 'http://gpu:8188', url: 'http://gpu:8188', healthy: false }] };
      h = await makeHarness(transport, { health: async () => ({ ok: true, database: { ok: true }, backends }) });
      const res = await h.request('/healthz');
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ status: 'degraded', database: { ok: true }, backends });
      await h.close();
      h = await makeHarness(transport, { health: async () => ({ ok: true, database: { ok: true }, backends: { ...backends, available: true } }) });
      expect(((await (await h.request('/healthz')).json()) as { status: string }).status).to.equal('ok');
    });
  });
}

describe('HTTP client address behind a trusted proxy (node)', () => {
  let h: Harness;
  afterEach(() => h.close());

  const failAs = (forwardedFor: string) =>
    h.request('/api/v1/account', { headers: { authorization: 'Bearer rl_0123456789_wrong', 'x-forwarded-for': forwardedFor } });

  it('counts failed authentications per forwarded address when the socket is a trusted proxy', async () => {
    h = await makeHarness('node', { trustedProxies: ['127.0.0.1'] });
    for (let i = 0; i < 30; i += 1) expect((await failAs('198.51.100.7')).status).to.equal(401);
    const limited = await failAs('198.51.100.7');
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('retry-after')).to.equal('60');
    expect(await limited.json()).to.deep.equal({
      error: { code: 'RATE_LIMITED', message: 'Too many failed authentication attempts from this address', retry_after: 60 },
    });
    const other = await failAs('203.0.113.9');
    expect(other.status).to.equal(401);
    expect(other.headers.get('x-ratelimit-minute-remaining')).to.equal('29');
    // A client cannot hide behind a forged first entry: the proxy appended the real address last.
    const forged = await failAs('203.0.113.9, 198.51.100.7');
    expect(forged.status).to.equal(429);
  });

  it('ignores X-Forwarded-For from a socket that is not a trusted proxy', async () => {
    h = await makeHarness('node');
    for (let i = 0; i < 30; i += 1) expect((await failAs(`192.0.2.${i}`)).status).to.equal(401);
    const limited = await failAs('192.0.2.200');
    expect(limited.status).to.equal(429);
  });
});
