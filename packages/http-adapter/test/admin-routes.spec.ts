/**
 * The admin routes as a billing site and a support tool use them, on both transports; every
 * response is checked against the OpenAPI document by the harness.
 */
import { expect } from 'chai';
import { CLI_AUTHOR, type Run } from '@runload/core';
import { USAGE_CSV_HEADER } from '@runload/api-schema';
import { parseCsv } from '@runload/api-schema/testing';
import { jsonInit, makeHarness, T0, TRANSPORTS, WORKFLOW, type Harness } from './harness.js';

const ENTERPRISE = { runs_per_minute: 300, runs_per_hour: 5000, gpu_seconds_per_month: 1_000_000 };
const MISSING = '00000000-0000-4000-8000-000000000000';


for (const transport of TRANSPORTS) {
  describe(`admin routes (${transport})`, () => {
    let h: Harness;
    let auth: Record<string, string>;
    beforeEach(async () => {
      h = await makeHarness(transport, { limits: { tiers: { enterprise: ENTERPRISE } } });
      auth = { authorization: `Bearer ${(await h.api.adminTokens.create('billing', ['*'], CLI_AUTHOR)).secret}` };
    });
    afterEach(() => h.close());

    const call = async (path: string, init: RequestInit = {}) => {
      const res = await h.request(`/api/v1/admin${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
      const text = res.status === 204 ? '' : await res.text();
      return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text, headers: res.headers };
    };
    const send = (path: string, body: unknown, method = 'POST') => call(path, jsonInit(body, {}, method));

    it('lists the tiers with their limits, the limits file\'s own included', async () => {
      const { body } = await call('/tiers');
      expect(body.tiers.find((t: { name: string }) => t.name === 'enterprise')).to.deep.equal({ name: 'enterprise', ...ENTERPRISE, workflows: true });
      expect(body.tiers).to.have.length(5);
    });

    it('creates, reads, pages, changes, suspends and reactivates accounts', async () => {
      const created = await send('/accounts', { name: 'Ada', tier: 'enterprise' });
      expect(created.status).to.equal(201);
      expect(created.body).to.deep.include({ name: 'Ada', tier: 'enterprise', status: 'active' });
      const id = created.body.account_id as string;
      h.clock.advance(1);
      await send('/accounts', { name: 'Grace', tier: 'plus' });
      const detail = await call(`/accounts/${id}`);
      expect(detail.body).to.deep.include({ account_id: id, gpu_seconds_used: 0, gpu_seconds_quota: 1_000_000, runs_queued: 0, runs_running: 0 });
      const first = await call('/accounts?limit=1');
      expect(first.body.accounts.map((a: { name: string }) => a.name)).to.deep.equal(['Grace']);
      const second = await call(`/accounts?limit=1&cursor=${first.body.next_cursor}`);
      expect(second.body.accounts.map((a: { name: string }) => a.name)).to.deep.equal(['Ada']);
      expect((await call('/accounts?tier=enterprise')).body.accounts).to.have.length(1);
      const patched = await send(`/accounts/${id}`, { tier: 'max', status: 'suspended', name: 'Ada L.' }, 'PATCH');
      expect(patched.status).to.equal(200);
      expect(patched.body).to.deep.include({ name: 'Ada L.', tier: 'max', status: 'suspended' });
      expect((await call('/accounts?status=suspended')).body.accounts.map((a: { account_id: string }) => a.account_id)).to.deep.equal([id]);
      expect((await send(`/accounts/${id}`, { status: 'active' }, 'PATCH')).body.status).to.equal('active');
    });

    it('answers bad account bodies, unknown tiers and unknown ids in the structured form', async () => {
      const notJson = await call('/accounts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
      expect(notJson.status).to.equal(400);
      expect(notJson.body.error.code).to.equal('INVALID_REQUEST');
      const noName = await send('/accounts', { tier: 'starter' });
      expect(noName.status).to.equal(400);
      const extra = await send('/accounts', { name: 'A', tier: 'starter', plan: 'gold' });
      expect(extra.status).to.equal(400);
      expect(extra.body.error.message).to.match(/plan/);
      const unknownTier = await send('/accounts', { name: 'A', tier: 'gold' });
      expect(unknownTier.status).to.equal(422);
      expect(unknownTier.body).to.deep.equal({ error: { code: 'INVALID_REQUEST', message: 'Unknown tier "gold": use one of starter, plus, max, ultra, enterprise' } });
      expect((await send(`/accounts/${MISSING}`, { tier: 'plus' }, 'PATCH')).body.error.code).to.equal('ACCOUNT_NOT_FOUND');
      expect((await call(`/accounts/not-a-uuid`)).status).to.equal(404);
      expect((await call(`/accounts/${MISSING}`)).body).to.deep.equal({ error: { code: 'ACCOUNT_NOT_FOUND', message: `Account ${MISSING} not found` } });
      expect((await call('/accounts?limit=0')).status).to.equal(400);
      expect((await call('/accounts?cursor=nope')).status).to.equal(400);
    });

    it('suspends an account: its key is refused from the next second', async () => {
      const user = await h.user();
      expect((await h.request('/api/v1/account', { headers: user.auth })).status).to.equal(200);
      await send(`/accounts/${user.accountId}`, { status: 'suspended' }, 'PATCH');
      h.clock.advance(1000);
      const refused = await h.request('/api/v1/account', { headers: user.auth });
      expect(refused.status).to.equal(403);
      expect(await refused.json()).to.deep.equal({ error: 'Account suspended' });
    });

    it('issues keys shown once, lists them without secrets, and revokes them', async () => {
      const { body: account } = await send('/accounts', { name: 'Ada', tier: 'starter' });
      const issued = await send(`/accounts/${account.account_id}/keys`, { name: 'production' });
      expect(issued.status).to.equal(201);
      expect(issued.body).to.include({ account_id: account.account_id, name: 'production' });
      expect(issued.body.api_key).to.match(/^rl_[0-9A-Za-z]{10}_[0-9A-Za-z]{43}$/);
      h.clock.advance(1);
      const unnamed = await call(`/accounts/${account.account_id}/keys`, { method: 'POST' });
      expect(unnamed.status).to.equal(201);
      expect(unnamed.body.name).to.equal(null);
      expect((await h.request('/api/v1/account', { headers: { authorization: `Bearer ${issued.body.api_key}` } })).status).to.equal(200);
      const listed = await call(`/accounts/${account.account_id}/keys`);
      expect(listed.body.keys.map((k: { key_id: string }) => k.key_id)).to.deep.equal([issued.body.key_id, unnamed.body.key_id]);
      expect(listed.body.keys[0].last_used_at, 'the request above used it').to.be.a('string');
      expect(JSON.stringify(listed.body)).not.to.contain(issued.body.api_key.split('_')[2]);
      expect((await call(`/keys/${issued.body.key_id}`, { method: 'DELETE' })).status).to.equal(204);
      h.clock.advance(1000);
      expect((await h.request('/api/v1/account', { headers: { authorization: `Bearer ${issued.body.api_key}` } })).status).to.equal(401);
      expect((await call(`/keys/${MISSING}`, { method: 'DELETE' })).body.error.code).to.equal('KEY_NOT_FOUND');
      expect((await send(`/accounts/${MISSING}/keys`, {})).body.error.code).to.equal('ACCOUNT_NOT_FOUND');
      expect((await call(`/accounts/${MISSING}/keys`)).status).to.equal(404);
    });

    it('publishes, lists and deletes apps with the CLI\'s checks', async () => {
      const published = await send('/apps', { name: 'Blur', workflow: WORKFLOW, expose: ['2:blur_radius'] });
      expect(published.status).to.equal(201);
      expect(published.body).to.include({ name: 'Blur', deleted: false });
      expect(published.body.inputs.map((i: { key: string }) => i.key)).to.deep.equal(['2:blur_radius']);
      const ui = await send('/apps', { name: 'UI', workflow: { nodes: [], links: [] } });
      expect(ui.status).to.equal(422);
      expect(ui.body.error.code).to.equal('INVALID_WORKFLOW');
      expect((await send('/apps', { name: 'x', workflow: WORKFLOW, require_labels: { gpu: 'a100' } })).status, 'not a field this server takes').to.equal(400);
      const id = published.body.app_version_id as string;
      expect((await call(`/apps/${id}`, { method: 'DELETE' })).status).to.equal(204);
      expect((await h.request(`/api/v1/apps/${id}`, { headers: (await h.user()).auth })).status).to.equal(410);
      expect((await call('/apps')).body.apps.map((a: { app_version_id: string }) => a.app_version_id)).not.to.include(id);
      const all = await call('/apps?include_deleted=true');
      expect(all.body.apps.find((a: { app_version_id: string }) => a.app_version_id === id)?.deleted).to.equal(true);
      expect((await call(`/apps/${MISSING}`, { method: 'DELETE' })).body.error.code).to.equal('APP_VERSION_NOT_FOUND');
    });

    it('reads, lists and cancels the runs of any account', async () => {
      const user = await h.user();
      const created = await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit({ inputs: {} }, user.auth));
      const runId = ((await created.json()) as { run_id: string }).run_id;
      const listed = await call(`/runs?account_id=${user.accountId}&status=queued`);
      expect(listed.body.runs.map((r: { run_id: string; account_id: string }) => [r.run_id, r.account_id])).to.deep.equal([[runId, user.accountId]]);
      expect((await call('/runs?status=running')).body.runs).to.deep.equal([]);
      expect((await call('/runs?status=lost')).status).to.equal(400);
      const one = await call(`/runs/${runId}`);
      expect(one.body).to.include({ run_id: runId, account_id: user.accountId, status: 'queued', queue_position: 0 });
      const canceled = await call(`/runs/${runId}/cancel`, { method: 'POST' });
      expect(canceled.body.status).to.equal('canceled');
      expect((await call(`/runs/${MISSING}`)).body.error.code).to.equal('RUN_NOT_FOUND');
      expect((await call(`/runs/${MISSING}/cancel`, { method: 'POST' })).status).to.equal(404);
    });

    it('reports a month\'s usage per account that matches its runs, as JSON and as CSV that parses back to it', async () => {
      const ada = await h.user();
      await h.api.accounts.update(ada.accountId, { name: 'Ada, "the first"' });
      const bob = await h.user('plus');
      const finish = async (accountId: string, status: Run['status'], gpuSeconds: number) => {
        const run = (await h.ports.runs.listAll({ limit: 1, accountId })).runs[0];
        expect(run, 'a queued run').to.not.equal(undefined);
        await h.ports.runs.update(run!.id, { status, finishedAt: new Date(h.clock.nowMs()), startedAt: new Date(h.clock.nowMs()) });
        if (gpuSeconds > 0) await h.ports.gpuLedger.charge({ accountId, runId: run!.id, seconds: gpuSeconds, chargedAt: new Date(h.clock.nowMs()) });
      };
      const runOnce = async (user: typeof ada, status: Run['status'], seconds: number) => {
        h.clock.advance(1);
        expect((await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit({ inputs: {} }, user.auth))).status).to.equal(201);
        await finish(user.accountId, status, seconds);
      };
      await runOnce(ada, 'succeeded', 2.5);
      await runOnce(ada, 'succeeded', 1.25);
      await runOnce(ada, 'failed', 0.5);
      await runOnce(bob, 'expired', 0);
      const month = new Date(T0).toISOString().slice(0, 7);
      const json = await call(`/usage?month=${month}`);
      expect(json.status).to.equal(200);
      const byId = new Map(json.body.accounts.map((a: { account_id: string }) => [a.account_id, a]));
      expect(byId.get(ada.accountId)).to.deep.equal({ account_id: ada.accountId, name: 'Ada, "the first"', tier: 'starter', gpu_seconds: 4.25, runs: { succeeded: 2, failed: 1, canceled: 0, expired: 0 } });
      expect(byId.get(bob.accountId)).to.deep.include({ gpu_seconds: 0, runs: { succeeded: 0, failed: 0, canceled: 0, expired: 1 } });
      expect((await call('/usage?month=2020-01')).body.accounts.every((a: { gpu_seconds: number }) => a.gpu_seconds === 0)).to.equal(true);

      const csv = await call(`/usage?month=${month}`, { headers: { accept: 'text/csv' } });
      expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
      const [header, ...rows] = parseCsv(csv.body as string);
      expect(header?.join(',')).to.equal(USAGE_CSV_HEADER);
      const back = rows.map(([account_id, name, tier, gpu, succeeded, failed, canceled, expired]) => ({
        account_id,
        name,
        tier,
        gpu_seconds: Number(gpu),
        runs: { succeeded: Number(succeeded), failed: Number(failed), canceled: Number(canceled), expired: Number(expired) },
      }));
      expect(back).to.deep.equal(json.body.accounts);

      const paged = await call(`/usage?month=${month}&limit=1`);
      expect(paged.body.accounts).to.have.length(1);
      expect(paged.body.next_cursor).to.be.a('string');
      expect((await call('/usage')).status, 'month is required').to.equal(400);
      expect((await call('/usage?month=2026-13')).status).to.equal(400);
    });

    it('records every change in the audit trail, with the token and request, and never a secret', async () => {
      const { body: account } = await send('/accounts', { name: 'Ada', tier: 'starter' });
      const key = await call(`/accounts/${account.account_id}/keys`, { method: 'POST', headers: { 'x-request-id': 'req-key-1' } });
      await call(`/keys/${key.body.key_id}`, { method: 'DELETE' });
      await send(`/accounts/${account.account_id}`, { status: 'suspended', tier: 'plus' }, 'PATCH');
      h.clock.advance(1);
      await h.api.accounts.unsuspend(account.account_id, CLI_AUTHOR);
      const page = await call('/audit?limit=100');
      const entries = page.body.entries as { at: string; actor: string; action: string; target: string; request_id: string | null }[];
      const mine = entries.filter((e) => e.target === account.account_id || e.target === key.body.key_id);
      expect(mine.map((e) => e.action)).to.have.members(['account.create', 'key.create', 'key.revoke', 'account.set_tier', 'account.suspend', 'account.unsuspend']);
      const tokenEntries = mine.filter((e) => e.action !== 'account.unsuspend');
      expect(tokenEntries.every((e) => /^token:[0-9a-f-]{36}$/.test(e.actor))).to.equal(true);
      expect(mine.find((e) => e.action === 'key.create')?.request_id).to.equal('req-key-1');
      expect(mine.find((e) => e.action === 'account.unsuspend')).to.include({ actor: 'cli', request_id: null });
      expect(entries[0]?.action, 'newest first').to.equal('account.unsuspend');
      expect(JSON.stringify(page.body)).not.to.contain(key.body.api_key.split('_')[2]);
      const first = await call('/audit?limit=2');
      const next = await call(`/audit?limit=2&cursor=${first.body.next_cursor}`);
      expect([...first.body.entries, ...next.body.entries]).to.deep.equal(entries.slice(0, 4));
    });
  });
}
