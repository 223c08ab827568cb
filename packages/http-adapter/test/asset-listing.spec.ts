/** GET /assets (listing), DELETE /assets/{id}, expires_at and retention as a client sees them. */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { makeHarness, PNG, T0, TRANSPORTS, type Harness } from './harness.js';

const DAY = 86_400_000;

for (const transport of TRANSPORTS) {
  describe(`HTTP asset listing, deletion and retention (${transport})`, function () {
    this.timeout(30_000);
    let h: Harness;
    let u: Awaited<ReturnType<Harness['user']>>;
    beforeEach(async () => {
      h = await makeHarness(transport, { limits: { retention: { uploads_days: 0.5, outputs_days: 30 } } });
      u = await h.user();
    });
    afterEach(async () => h.close());

    /** A distinct PNG each time (a chunk after IEND keeps it a PNG by its magic bytes). */
    const upload = async (): Promise<Record<string, unknown>> => {
      const f = new FormData();
      f.append('file', new Blob([Buffer.concat([PNG, randomBytes(8)])]), 'a.png');
      const res = await h.request('/api/v1/assets', { method: 'POST', headers: u.auth, body: f });
      expect(res.status).to.equal(201);
      return (await res.json()) as Record<string, unknown>;
    };
    const get = async (path: string) => {
      const res = await h.request(path, { headers: u.auth });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const runWith = (assetId: string) =>
      h.request(`/api/v1/apps/${h.appVersionId}`, {
        method: 'POST',
        headers: { ...u.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: { '1:image': assetId } }),
      });

    it('shows expires_at from the retention of uploads, and lists newest first page by page', async () => {
      const first = await upload();
      expect(first['expires_at']).to.equal(new Date(T0 + DAY / 2).toISOString());
      h.clock.advance(1000);
      const second = await upload();
      h.clock.advance(1000);
      const third = await upload();
      const page1 = await get('/api/v1/assets?limit=2');
      expect(page1.status).to.equal(200);
      expect((page1.body['assets'] as { asset_id: string }[]).map((a) => a.asset_id)).to.deep.equal([third['asset_id'], second['asset_id']]);
      expect((page1.body['assets'] as unknown[])[0]).to.deep.equal(third);
      const page2 = await get(`/api/v1/assets?limit=2&cursor=${String(page1.body['next_cursor'])}`);
      expect(page2.body).to.deep.equal({ assets: [first], next_cursor: null });
      expect((await get('/api/v1/assets?kind=video')).body).to.deep.equal({ assets: [], next_cursor: null });
      expect((await get('/api/v1/assets?origin=output')).body).to.deep.equal({ assets: [], next_cursor: null });
      expect(((await get('/api/v1/assets?kind=image&origin=upload')).body['assets'] as unknown[]).length).to.equal(3);
      for (const bad of ['kind=text', 'origin=mine', 'limit=0', 'cursor=nonsense']) expect((await get(`/api/v1/assets?${bad}`)).status, bad).to.equal(400);
    });

    it('lists only the caller’s assets', async () => {
      await upload();
      const other = await h.user();
      const res = await h.request('/api/v1/assets', { headers: other.auth });
      expect(await res.json()).to.deep.equal({ assets: [], next_cursor: null });
    });

    it('deletes an asset: 204, then 404 ASSET_NOT_FOUND everywhere; another account cannot delete it', async () => {
      const asset = await upload();
      const id = String(asset['asset_id']);
      const other = await h.user();
      expect((await h.request(`/api/v1/assets/${id}`, { method: 'DELETE', headers: other.auth })).status).to.equal(404);
      const res = await h.request(`/api/v1/assets/${id}`, { method: 'DELETE', headers: u.auth });
      expect(res.status).to.equal(204);
      expect(await res.text()).to.equal('');
      for (const path of [`/api/v1/assets/${id}`, `/api/v1/assets/${id}/content`]) {
        const gone = await get(path);
        expect(gone.status).to.equal(404);
        expect((gone.body['error'] as Record<string, unknown>)['code']).to.equal('ASSET_NOT_FOUND');
      }
      expect((await h.request(`/api/v1/assets/${id}`, { method: 'DELETE', headers: u.auth })).status).to.equal(404);
      expect(await h.ports.blobs.size(String(asset['sha256']))).to.equal(null);
      expect((await get('/api/v1/assets')).body).to.deep.equal({ assets: [], next_cursor: null });
    });

    it('refuses to delete an input of a queued run with 409 ASSET_IN_USE, and deletes it once the run is canceled', async () => {
      const asset = await upload();
      const id = String(asset['asset_id']);
      const run = await runWith(id);
      expect(run.status).to.equal(201);
      const refused = await h.request(`/api/v1/assets/${id}`, { method: 'DELETE', headers: u.auth });
      expect(refused.status).to.equal(409);
      expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('ASSET_IN_USE');
      const runId = ((await run.json()) as { run_id: string }).run_id;
      expect((await h.request(`/api/v1/runs/${runId}/cancel`, { method: 'POST', headers: u.auth })).status).to.equal(200);
      expect((await h.request(`/api/v1/assets/${id}`, { method: 'DELETE', headers: u.auth })).status).to.equal(204);
    });

    it('an upload expires after uploads_days unless a run uses it (which restarts its clock); a run on an expired input is 422', async () => {
      const used = await upload();
      const unused = await upload();
      h.clock.advance(DAY / 4);
      expect((await runWith(String(used['asset_id']))).status).to.equal(201);
      expect((await get(`/api/v1/assets/${String(used['asset_id'])}`)).body['expires_at']).to.equal(new Date(T0 + DAY / 4 + DAY / 2).toISOString());
      h.clock.advance(DAY / 4);
      expect((await get(`/api/v1/assets/${String(unused['asset_id'])}`)).status).to.equal(404);
      expect((await get(`/api/v1/assets/${String(unused['asset_id'])}/content`)).status).to.equal(404);
      expect(((await get('/api/v1/assets')).body['assets'] as { asset_id: string }[]).map((a) => a.asset_id)).to.deep.equal([used['asset_id']]);
      const refused = await runWith(String(unused['asset_id']));
      expect(refused.status).to.equal(422);
      const body = (await refused.json()) as { error: { code: string; details: { key: string; reason: string }[] } };
      expect(body.error.code).to.equal('INVALID_INPUT');
      expect(body.error.details).to.deep.equal([{ key: '1:image', reason: 'asset expired (retention); upload it again' }]);
    });
  });
}
