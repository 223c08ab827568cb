/**
 * The pool in the admin API on both transports: every answer checked against the OpenAPI
 * document (the harness does), credentials taken and never shown, the documented error codes.
 */
import { expect } from 'chai';
import { CLI_AUTHOR, newQueuedRun } from '@runload/core';
import { makeHarness, TRANSPORTS, jsonInit, type Harness } from './harness.js';

type Backend = { backend_id: string; url: string; state: string; source: string; labels: Record<string, string>; has_auth: boolean; held: number; expires_at: string | null };

for (const transport of TRANSPORTS) {
  describe(`admin API: the pool (${transport})`, () => {
    let h: Harness;
    let ops: Record<string, string>;
    let machine: Record<string, string>;
    beforeEach(async () => {
      h = await makeHarness(transport);
      ops = { authorization: `Bearer ${(await h.api.adminTokens.create('ops', ['backends'], CLI_AUTHOR)).secret}` };
      machine = { authorization: `Bearer ${(await h.api.adminTokens.create('gpu', ['backends:register'], CLI_AUTHOR)).secret}` };
    });
    afterEach(() => h.close());

    const send = async <T>(path: string, init: RequestInit) => {
      const res = await h.request(path, init);
      return { status: res.status, body: (res.status === 204 ? null : await res.json()) as T };
    };

    it('adds, lists, drains, activates and removes a backend; its credentials are never shown', async () => {
      const added = await send<Backend>('/api/v1/admin/backends', jsonInit({ url: 'http://GPU-1:8188/', labels: { gpu: 'a100' }, auth: { header: 'Authorization: Bearer s3cret' } }, ops));
      expect(added.status).to.equal(201);
      expect(added.body).to.deep.include({ url: 'http://gpu-1:8188', source: 'api', state: 'active', labels: { gpu: 'a100' }, has_auth: true, held: 0 });
      expect(JSON.stringify(added.body)).to.not.include('s3cret');
      const id = added.body.backend_id;
      expect((await send<{ backends: Backend[] }>('/api/v1/admin/backends', { headers: ops })).body.backends.map((b) => b.backend_id)).to.deep.equal([id]);
      expect((await send<Backend>(`/api/v1/admin/backends/${id}`, jsonInit({ state: 'draining', depth: 2 }, ops, 'PATCH'))).body).to.deep.include({ state: 'draining' });
      expect((await send<Backend>(`/api/v1/admin/backends/${id}`, jsonInit({ state: 'active' }, ops, 'PATCH'))).body.state).to.equal('active');
      expect((await send(`/api/v1/admin/backends/${id}`, { method: 'DELETE', headers: ops })).status).to.equal(204);
      expect((await send<{ error: { code: string } }>(`/api/v1/admin/backends/${id}`, { headers: ops })).body.error.code).to.equal('BACKEND_NOT_FOUND');
    });

    it('refuses a URL with credentials or a query (422), a second add (409), and a busy removal without force (409)', async () => {
      const creds = await send<{ error: { code: string; message: string } }>('/api/v1/admin/backends', jsonInit({ url: 'http://u:p@gpu-1:8188' }, ops));
      expect([creds.status, creds.body.error.code]).to.deep.equal([422, 'INVALID_REQUEST']);
      expect(creds.body.error.message).to.include('--auth-header').and.not.include('u:p');
      expect((await send('/api/v1/admin/backends', jsonInit({ url: 'http://gpu-1:8188/?a=1' }, ops))).status).to.equal(422);
      const added = await send<Backend>('/api/v1/admin/backends', jsonInit({ url: 'http://gpu-1:8188' }, ops));
      const again = await send<{ error: { code: string } }>('/api/v1/admin/backends', jsonInit({ url: 'http://gpu-1:8188' }, ops));
      expect([again.status, again.body.error.code]).to.deep.equal([409, 'BACKEND_EXISTS']);
      const run = { ...newQueuedRun({ id: h.ports.ids.uuid(), accountId: (await h.user()).accountId, appVersionId: h.appVersionId, createdAt: new Date(), inputs: {}, webhook: null }), backendId: added.body.url, status: 'running' as const };
      await h.ports.runs.create(run);
      const busy = await send<{ error: { code: string } }>(`/api/v1/admin/backends/${added.body.backend_id}`, { method: 'DELETE', headers: ops });
      expect([busy.status, busy.body.error.code]).to.deep.equal([409, 'BACKEND_BUSY']);
      expect((await send(`/api/v1/admin/backends/${added.body.backend_id}?force=true`, { method: 'DELETE', headers: ops })).status).to.equal(204);
    });

    it('registers a GPU machine (201), renews its lease (200), deregisters it; the registering token can do nothing else', async () => {
      const first = await send<Backend>('/api/v1/admin/backends/register', jsonInit({ url: 'http://10.0.0.5:8188', labels: { gpu: 'l4' }, ttl_seconds: 30 }, machine));
      expect([first.status, first.body.source, first.body.expires_at !== null]).to.deep.equal([201, 'registered', true]);
      const renewed = await send<Backend>('/api/v1/admin/backends/register', jsonInit({ url: 'http://10.0.0.5:8188' }, machine));
      expect([renewed.status, renewed.body.backend_id]).to.deep.equal([200, first.body.backend_id]);
      expect((await send('/api/v1/admin/backends/register', jsonInit({ url: 'http://10.0.0.5:8188', ttl_seconds: 5 }, machine))).status).to.equal(400);
      const left = await send<Backend>('/api/v1/admin/backends/register?url=http%3A%2F%2F10.0.0.5%3A8188', { method: 'DELETE', headers: machine });
      expect([left.status, left.body.state]).to.deep.equal([200, 'draining']);
      expect((await send('/api/v1/admin/backends', { headers: machine })).status).to.equal(403);
    });

    it('shows the pool at a glance', async () => {
      await send('/api/v1/admin/backends', jsonInit({ url: 'http://gpu-1:8188' }, ops));
      const pool = await send<{ backends: Backend[]; queued: number; waiting_for_capacity: number; waiting_for_capability: number }>('/api/v1/admin/pool', { headers: ops });
      expect(pool.status).to.equal(200);
      expect(pool.body).to.deep.include({ queued: 0, waiting_for_capacity: 0, waiting_for_capability: 0 });
      expect(pool.body.backends).to.have.length(1);
    });
  });
}
