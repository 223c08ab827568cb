/** GPU seconds to the millisecond, integer quota headers, invalid ranges ignored, ids in any case. */
import { expect } from 'chai';
import { jsonInit, makeHarness, PNG, T0, TRANSPORTS, type Harness } from './harness.js';

for (const transport of TRANSPORTS) {
  describe(`HTTP figures and ids (${transport})`, () => {
    let h: Harness;
    beforeEach(async () => {
      h = await makeHarness(transport);
    });
    afterEach(() => h.close());

    async function upload(auth: Record<string, string>): Promise<string> {
      const form = new FormData();
      form.append('file', new Blob([PNG]), 'a.png');
      return ((await (await h.request('/api/v1/assets', { method: 'POST', headers: auth, body: form })).json()) as { asset_id: string }).asset_id;
    }

    it('shows GPU seconds to the millisecond and the quota headers as whole seconds', async () => {
      const u = await h.user();
      for (const [i, seconds] of [0.1, 0.2, 0.618].entries()) {
        await h.ports.gpuLedger.charge({ accountId: u.accountId, runId: `00000000-0000-4000-8000-00000000000${i}`, seconds, chargedAt: new Date(T0) });
      }
      const account = (await (await h.request('/api/v1/account', { headers: u.auth })).json()) as { gpu_seconds_used: number };
      expect(account.gpu_seconds_used).to.equal(0.918);
      const created = await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit({ inputs: {} }, u.auth));
      expect(created.status).to.equal(201);
      expect(created.headers.get('x-gpu-quota-remaining')).to.equal('3599');
      expect(created.headers.get('x-gpu-quota-limit')).to.equal('3600');
    });

    it('ignores a Range whose end comes before its start (RFC 9110): 200 and the whole file', async () => {
      const u = await h.user();
      const id = await upload(u.auth);
      const res = await h.request(`/api/v1/assets/${id}/content`, { headers: { ...u.auth, range: 'bytes=9-2' } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-range')).to.equal(null);
      expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).to.equal(true);
    });

    it('finds runs, assets and app versions by ids in upper case, in paths and in inputs', async () => {
      const u = await h.user();
      const asset = await upload(u.auth);
      const upper = (id: string) => id.toUpperCase();
      expect((await h.request(`/api/v1/assets/${upper(asset)}`, { headers: u.auth })).status).to.equal(200);
      expect((await h.request(`/api/v1/apps/${upper(h.appVersionId)}`, { headers: u.auth })).status).to.equal(200);
      const created = await h.request(`/api/v1/apps/${upper(h.appVersionId)}`, jsonInit({ inputs: { '1:image': upper(asset) } }, u.auth));
      expect(created.status, await created.clone().text()).to.equal(201);
      const viaRuns = await h.request('/api/v1/runs', jsonInit({ app_version_id: upper(h.appVersionId), inputs: {} }, u.auth));
      expect(viaRuns.status).to.equal(201);
      const run = (await created.json()) as { run_id: string };
      const polled = (await (await h.request(`/api/v1/runs/${upper(run.run_id)}`, { headers: u.auth })).json()) as { run_id: string; inputs: Record<string, string> };
      expect(polled.run_id).to.equal(run.run_id);
      expect(polled.inputs['1:image']).to.equal(asset);
    });
  });
}
