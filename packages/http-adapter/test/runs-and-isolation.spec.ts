/** Runs over HTTP, and isolation: one account never reads, uses or learns of another's runs and assets. */
import { expect } from 'chai';
import { jsonInit, makeHarness, PNG, T0, TRANSPORTS, type Harness } from './harness.js';

for (const transport of TRANSPORTS) {
  describe(`HTTP runs and isolation (${transport})`, () => {
    let h: Harness;
    beforeEach(async () => (h = await makeHarness(transport)));
    afterEach(() => h.close());

    async function uploadPng(auth: Record<string, string>): Promise<string> {
      const f = new FormData();
      f.append('file', new Blob([PNG]), 'cat.png');
      const res = await h.request('/api/v1/assets', { method: 'POST', headers: auth, body: f });
      return ((await res.json()) as { asset_id: string }).asset_id;
    }

    it('creates through both run endpoints and polls the full run record', async () => {
      const u = await h.user();
      const asset = await uploadPng(u.auth);
      const created = await h.request('/api/v1/runs', jsonInit({ app_version_id: h.appVersionId, inputs: { '1:image': asset, '2:blur_radius': 7 } }, u.auth));
      expect(created.status).to.equal(201);
      const { run_id: runId } = (await created.json()) as { run_id: string };
      const poll = await h.request(`/api/v1/runs/${runId}`, { headers: u.auth });
      expect(poll.status).to.equal(200);
      expect(await poll.json()).to.deep.equal({
        run_id: runId,
        app_version_id: h.appVersionId,
        status: 'queued',
        created_at: new Date(T0).toISOString(),
        started_at: null,
        finished_at: null,
        poll_url: `/api/v1/runs/${runId}`,
        inputs: { '1:image': asset, '2:blur_radius': 7 },
        queue_position: 0,
        progress: null,
        outputs: [],
        error: null,
        metrics: { queue_ms: null, run_ms: null, gpu_seconds: null },
        attempts: 0,
      });
      const cancel = await h.request(`/api/v1/runs/${runId}/cancel`, { method: 'POST', headers: u.auth });
      expect(cancel.status).to.equal(200);
      expect(((await cancel.json()) as { status: string }).status).to.equal('canceled');
    });

    it('lists runs newest first with a cursor', async () => {
      const u = await h.user();
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        h.clock.advance(1000);
        const res = await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit({ inputs: {} }, u.auth));
        ids.push(((await res.json()) as { run_id: string }).run_id);
      }
      const first = (await (await h.request('/api/v1/runs?limit=3', { headers: u.auth })).json()) as { runs: { run_id: string }[]; next_cursor: string };
      const second = (await (await h.request(`/api/v1/runs?limit=3&cursor=${first.next_cursor}`, { headers: u.auth })).json()) as {
        runs: { run_id: string }[];
        next_cursor: string | null;
      };
      expect([...first.runs, ...second.runs].map((r) => r.run_id)).to.deep.equal([...ids].reverse());
      expect(second.next_cursor).to.equal(null);
      const bad = await h.request('/api/v1/runs?limit=0', { headers: u.auth });
      expect(bad.status).to.equal(400);
    });

    it("never lets one account read, cancel, download or use another's runs and assets", async () => {
      const alice = await h.user();
      const bob = await h.user();
      const asset = await uploadPng(alice.auth);
      const created = await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit({ inputs: { '1:image': asset } }, alice.auth));
      const { run_id: runId } = (await created.json()) as { run_id: string };
      const missingRun = '11111111-2222-4333-8444-555555555555';
      for (const [path, method] of [
        [`/api/v1/runs/${runId}`, 'GET'],
        [`/api/v1/runs/${runId}/cancel`, 'POST'],
      ] as const) {
        const theirs = await h.request(path, { method, headers: bob.auth });
        const none = await h.request(path.replace(runId, missingRun), { method, headers: bob.auth });
        expect(theirs.status).to.equal(404);
        expect(await theirs.json()).to.deep.equal({ error: { code: 'RUN_NOT_FOUND', message: `Run ${runId} not found` } });
        expect(none.status).to.equal(404);
      }
      for (const path of [`/api/v1/assets/${asset}`, `/api/v1/assets/${asset}/content`]) {
        const theirs = await h.request(path, { headers: bob.auth });
        expect(theirs.status).to.equal(404);
        expect(await theirs.json()).to.deep.equal({ error: { code: 'ASSET_NOT_FOUND', message: `Asset ${asset} not found` } });
      }
      const use = await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit({ inputs: { '1:image': asset } }, bob.auth));
      expect(use.status).to.equal(422);
      expect(((await use.json()) as { error: { details: unknown } }).error.details).to.deep.equal([{ key: '1:image', reason: 'no image asset with this id' }]);
      const list = (await (await h.request('/api/v1/runs', { headers: bob.auth })).json()) as { runs: unknown[] };
      expect(list.runs).to.deep.equal([]);
    });
  });
}
