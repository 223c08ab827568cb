import { expect } from 'chai';
import { buildOpenApiDocument } from '@runload/api-schema';
import { makeHarness, TRANSPORTS, WORKFLOW, type Harness } from './harness.js';

for (const transport of TRANSPORTS) {
  describe(`HTTP apps listing, CORS and the API description (${transport})`, () => {
    let h: Harness;
    afterEach(async () => h?.close());

    it('lists the live app versions newest first, a page at a time, without deleted ones', async () => {
      h = await makeHarness(transport);
      const { auth } = await h.user();
      const published = [h.appVersionId];
      for (const name of ['second', 'third', 'fourth']) {
        h.clock.advance(1000);
        published.push((await h.api.apps.publish({ name, workflow: WORKFLOW })).id);
      }
      await h.api.apps.delete(published[1] as string);
      const seen: Array<Record<string, unknown>> = [];
      let path = '/api/v1/apps?limit=2';
      for (let page = 0; page < 10; page += 1) {
        const res = await h.request(path, { headers: auth });
        expect(res.status).to.equal(200);
        const body = (await res.json()) as { apps: Array<Record<string, unknown>>; next_cursor: string | null };
        expect(body.apps.length).to.be.at.most(2);
        seen.push(...body.apps);
        if (body.next_cursor === null) break;
        path = `/api/v1/apps?limit=2&cursor=${encodeURIComponent(body.next_cursor)}`;
      }
      expect(seen.map((a) => a['app_version_id'])).to.deep.equal([published[3], published[2], published[0]]);
      expect(seen[0]).to.have.all.keys('app_version_id', 'app_id', 'name', 'created_at');
      expect(seen[0]?.['name']).to.equal('fourth');
    });

    it('answers a bad limit or cursor with 400 INVALID_REQUEST, and needs a key', async () => {
      h = await makeHarness(transport);
      const { auth } = await h.user();
      for (const [query, message] of [
        ['limit=0', 'limit must be a whole number from 1 to 100'],
        ['limit=abc', 'limit must be a whole number from 1 to 100'],
        ['limit=101', 'limit must be a whole number from 1 to 100'],
        ['cursor=nonsense', 'cursor is not one this service issued'],
      ] as const) {
        const res = await h.request(`/api/v1/apps?${query}`, { headers: auth });
        expect(res.status, query).to.equal(400);
        expect(await res.json()).to.deep.equal({ error: { code: 'INVALID_REQUEST', message } });
      }
      const runs = await h.request('/api/v1/runs?limit=-1', { headers: auth });
      expect(runs.status).to.equal(400);
      expect((await h.request('/api/v1/apps')).status).to.equal(401);
    });

    it('allows the configured origins, preflight included, and no other', async () => {
      h = await makeHarness(transport, { corsOrigins: ['https://app.example', 'https://other.example/'] });
      const { auth } = await h.user();
      const preflight = await h.request('/api/v1/runs', {
        method: 'OPTIONS',
        headers: { origin: 'https://other.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal('https://other.example');
      expect(preflight.headers.get('access-control-allow-methods')).to.include('POST');
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).to.include('authorization').and.include('idempotency-key');

      const call = await h.request('/api/v1/account', { headers: { ...auth, origin: 'https://app.example' } });
      expect(call.status).to.equal(200);
      expect(call.headers.get('access-control-allow-origin')).to.equal('https://app.example');
      expect(call.headers.get('access-control-expose-headers')).to.include('X-RateLimit-Minute-Remaining').and.include('Retry-After');
      expect(call.headers.get('vary')).to.include('Origin');
      const refused = await h.request('/api/v1/account', { headers: { ...auth, origin: 'https://evil.example' } });
      expect(refused.headers.get('access-control-allow-origin')).to.equal(null);
      const evilPreflight = await h.request('/api/v1/runs', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      expect(evilPreflight.headers.get('access-control-allow-origin')).to.equal(null);
      expect(evilPreflight.status).to.not.equal(204);
    });

    it('allows no origin when none is configured', async () => {
      h = await makeHarness(transport);
      const { auth } = await h.user();
      const preflight = await h.request('/api/v1/runs', { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
      expect(preflight.headers.get('access-control-allow-origin')).to.equal(null);
      const call = await h.request('/api/v1/account', { headers: { ...auth, origin: 'https://app.example' } });
      expect(call.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('serves /openapi.json and /docs at the root without a key', async () => {
      h = await makeHarness(transport);
      const doc = await h.request('/openapi.json');
      expect(doc.status).to.equal(200);
      // The document, naming the server it was read from.
      const origin = h.url ?? 'http://runload.test';
      expect(await doc.json()).to.deep.equal(JSON.parse(JSON.stringify(buildOpenApiDocument({ serverUrl: origin }))));
      const page = await h.request('/docs');
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.headers.get('content-security-policy')).to.include("default-src 'self'").and.include("connect-src 'self'");
      const html = await page.text();
      for (const src of [...html.matchAll(/src="([^"]+)"/g)].map((m) => m[1] as string)) {
        expect(src, 'every script is served by runload').to.match(/^\/docs\/assets\//);
        const asset = await h.request(src);
        expect(asset.status, src).to.equal(200);
        expect(asset.headers.get('content-type')).to.match(/^text\/javascript/);
      }
      expect((await h.request('/docs/assets/nope.js')).status).to.equal(404);
      const head = await h.request('/openapi.json', { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(await head.text()).to.equal('');
      expect((await h.request('/openapi.json', { method: 'POST' })).status).to.equal(405);
    });
  });
}
