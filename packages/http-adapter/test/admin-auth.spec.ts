/**
 * The admin API's door on both transports: admin tokens only (never an API key, and admin tokens
 * never on account routes), scopes, the failed-authentication window and each token's own window.
 */
import { expect } from 'chai';
import { ADMIN_GENERAL_PER_MINUTE, CLI_AUTHOR, createRunloadApi, DEFAULT_LIMITS } from '@runload/core';
import { createInMemoryPorts } from '@runload/core/testing';
import { createHttpApp, type AdminRoute } from '@runload/http-adapter';
import { makeHarness, TRANSPORTS, type Harness } from './harness.js';

/** A route as another part of the admin API would declare it (the pool's, say). */
const POOL_ROUTE: AdminRoute = { method: 'GET', path: '/test-backends', scope: 'backends', handler: async () => ({ status: 200, body: { backends: [] } }) };

for (const transport of TRANSPORTS) {
  describe(`admin authentication (${transport})`, () => {
    let h: Harness;
    let token = '';
    let tokenId = '';
    beforeEach(async () => {
      h = await makeHarness(transport, { limits: { auth_failures_per_minute: 5 } });
      const issued = await h.api.adminTokens.create('billing', ['accounts'], CLI_AUTHOR);
      token = issued.secret;
      tokenId = issued.token.id;
    });
    afterEach(() => h.close());

    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

    it('answers a valid token with the route, and the token window in the headers', async () => {
      const res = await h.request('/api/v1/admin/tiers', { headers: bearer(token) });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-ratelimit-minute-limit')).to.equal(String(ADMIN_GENERAL_PER_MINUTE));
      expect(res.headers.get('x-ratelimit-minute-remaining')).to.equal(String(ADMIN_GENERAL_PER_MINUTE - 1));
      const body = (await res.json()) as { tiers: { name: string }[] };
      expect(body.tiers.map((t) => t.name)).to.deep.equal(['starter', 'plus', 'max', 'ultra']);
    });

    it('refuses a missing token, a malformed or revoked one, and an API key, in the plain form', async () => {
      const user = await h.user();
      const missing = await h.request('/api/v1/admin/tiers');
      expect(missing.status).to.equal(401);
      expect(missing.headers.get('www-authenticate')).to.equal('Bearer');
      expect(await missing.json()).to.deep.equal({ error: 'Missing admin token' });
      for (const wrong of ['rladm_nonsense', user.key, `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`]) {
        const res = await h.request('/api/v1/admin/tiers', { headers: bearer(wrong) });
        expect(res.status, wrong).to.equal(401);
        expect(await res.json()).to.deep.equal({ error: 'Invalid admin token' });
      }
      await h.api.adminTokens.revoke(tokenId, CLI_AUTHOR);
      h.clock.advance(1000);
      const revoked = await h.request('/api/v1/admin/tiers', { headers: bearer(token) });
      expect(revoked.status).to.equal(401);
      expect(await revoked.json()).to.deep.equal({ error: 'Invalid admin token' });
    });

    it('refuses an admin token on the account routes as an invalid API key', async () => {
      const res = await h.request('/api/v1/account', { headers: bearer(token) });
      expect(res.status).to.equal(401);
      expect(await res.json()).to.deep.equal({ error: 'Invalid API key' });
    });

    it('answers 403 FORBIDDEN naming the scope a token lacks', async () => {
      const usage = await h.api.adminTokens.create('invoices', ['usage'], CLI_AUTHOR);
      const res = await h.request('/api/v1/admin/tiers', { headers: bearer(usage.secret) });
      expect(res.status).to.equal(403);
      expect(await res.json()).to.deep.equal({ error: { code: 'FORBIDDEN', message: 'This admin token lacks the scope "accounts" (or "read")' } });
      const reader = await h.api.adminTokens.create('support', ['read'], CLI_AUTHOR);
      expect((await h.request('/api/v1/admin/tiers', { headers: bearer(reader.secret) })).status, 'read opens every GET').to.equal(200);
    });

    it('counts failed admin authentication in the address window, then refuses with 429', async () => {
      for (let i = 0; i < 5; i += 1) expect((await h.request('/api/v1/admin/tiers', { headers: bearer('rladm_x_y') })).status).to.equal(401);
      const limited = await h.request('/api/v1/admin/tiers', { headers: bearer('rladm_x_y') });
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
      expect(((await limited.json()) as { error: { code: string } }).error.code).to.equal('RATE_LIMITED');
    });

    it("limits each token to its own 600 requests a minute, with the usual headers", async () => {
      for (let i = 0; i < ADMIN_GENERAL_PER_MINUTE - 1; i += 1) await h.api.authenticateAdmin.consume({ token: (await h.ports.adminTokens.get(tokenId))! });
      const last = await h.request('/api/v1/admin/tiers', { headers: bearer(token) });
      expect(last.status).to.equal(200);
      expect(last.headers.get('x-ratelimit-minute-remaining')).to.equal('0');
      const refused = await h.request('/api/v1/admin/tiers', { headers: bearer(token) });
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('x-ratelimit-minute-remaining')).to.equal('0');
      const other = await h.api.adminTokens.create('other', ['*'], CLI_AUTHOR);
      expect((await h.request('/api/v1/admin/tiers', { headers: bearer(other.secret) })).status, 'another token has its own window').to.equal(200);
      h.clock.advance(60_000);
      expect((await h.request('/api/v1/admin/tiers', { headers: bearer(token) })).status).to.equal(200);
    });

    it('authenticates unknown admin paths with an admin token first, then answers 404 or 405', async () => {
      expect((await h.request('/api/v1/admin/nothing-here')).status).to.equal(401);
      const unknown = await h.request('/api/v1/admin/nothing-here', { headers: bearer(token) });
      expect(unknown.status).to.equal(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).to.equal('NOT_FOUND');
      const wrongMethod = await h.request('/api/v1/admin/tiers', { method: 'DELETE', headers: bearer(token) });
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.headers.get('allow')).to.equal('GET, HEAD');
    });
  });
}

describe('declaring an admin route with its scope', () => {
  it('serves an added route behind its scope: the scope, "read" for a GET, or "*"', async () => {
    // Straight on the app: the route is not in the OpenAPI document, which the harness checks against.
    const api = createRunloadApi(createInMemoryPorts(), DEFAULT_LIMITS);
    const app = createHttpApp(api, { maxUploadBytes: 1024, uploadDir: '/nonexistent', health: async () => ({ ok: true }), log: () => undefined, adminRoutes: [POOL_ROUTE] });
    const call = async (scopes: string[]) => {
      const { secret } = await api.adminTokens.create('t', scopes, CLI_AUTHOR);
      return (await app.fetch(new Request('http://runload.test/api/v1/admin/test-backends', { headers: { authorization: `Bearer ${secret}` } }))).status;
    };
    expect(await call(['backends'])).to.equal(200);
    expect(await call(['read'])).to.equal(200);
    expect(await call(['*'])).to.equal(200);
    expect(await call(['accounts', 'backends:register'])).to.equal(403);
  });
});
