/**
 * Signed webhooks end to end: a server process on SQLite, the fake ComfyUI, and real
 * receivers on loopback (so the tests allow private addresses, and check the refusal without).
 */
import { expect } from 'chai';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { waitFor } from '@runload/core/testing';
import { openDatabase } from '@runload/storage-adapter';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { apiClient, type ApiClient } from './client.js';
import { cliJson, REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

describe('webhooks end to end (SQLite, one instance)', function () {
  this.timeout(120_000);
  const data = tempDataDir();
  let fake: FakeComfyUI;
  let env: Record<string, string>;
  let server: ServerProcess;
  let api: ApiClient;
  let accountId: string;
  let apiKey: string;
  let appVersionId: string;
  let receiver: WebhookReceiver;

  before(async () => {
    fake = await startFakeComfyUI({ executionMs: 30 });
    env = {
      RUNLOAD_DATA_DIR: data.dir,
      RUNLOAD_COMFYUI_URLS: fake.url,
      RUNLOAD_LOG_LEVEL: 'silent',
      RUNLOAD_WEBHOOK_ALLOW_PRIVATE: 'true',
      RUNLOAD_WEBHOOK_RETRY_DELAYS_MS: '100,100,100',
    };
    accountId = (await cliJson<{ account_id: string }>(['accounts', 'create', '--name', 'w', '--tier', 'ultra'], env)).account_id;
    apiKey = (await cliJson<{ api_key: string }>(['keys', 'create', '--account', accountId], env)).api_key;
    appVersionId = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env)).app_version_id;
    server = await startServerProcess(env);
    api = apiClient(server.url, apiKey);
  });
  beforeEach(async () => (receiver = await startWebhookReceiver()));
  afterEach(async () => receiver.close());
  after(async () => {
    await server?.stop('SIGTERM');
    await fake.close();
    data.remove();
  });

  const image = () => api.upload(Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082', 'hex'), 'in.png');
  async function run(extra: Record<string, unknown>): Promise<string> {
    const res = await api.json<{ run_id: string }>('POST', `/api/v1/apps/${appVersionId}`, { inputs: { '1:image': await image() }, ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.run_id;
  }
  const secret = async () => (await cliJson<{ webhook_secret: string }>(['accounts', 'webhook-secret', accountId], env)).webhook_secret;

  it('POSTs a run.succeeded signed with the account secret, which the receiver verifies with standardwebhooks', async () => {
    const runId = await run({ webhook: receiver.url });
    await receiver.until((r) => r.length >= 1);
    const [hook] = receiver.received;
    const key = await secret();
    const payload = new Webhook(key).verify(hook?.body ?? '', hook?.headers ?? {}) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(payload.type).to.equal('run.succeeded');
    expect(payload.data['run_id']).to.equal(runId);
    expect(payload.data['status']).to.equal('succeeded');
    expect(payload.data['finished_at']).to.equal(payload.timestamp);
    expect(payload.data['webhook']).to.equal(receiver.url);
    expect(hook?.headers['webhook-id']).to.match(/^msg_/);
    // Signed with another secret, or with the body altered, it fails verification.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(hook?.body ?? '', hook?.headers ?? {})).to.throw();
    expect(() => new Webhook(key).verify((hook?.body ?? '').replace('succeeded', 'failed'), hook?.headers ?? {})).to.throw();
    // The record a poll shows is the one the webhook carried, and it tells its owner where the events go.
    const polled = (await api.json('GET', `/api/v1/runs/${runId}`)).body;
    expect(polled['webhook']).to.equal(receiver.url);
    expect(polled['webhook_events']).to.deep.equal(['run.succeeded', 'run.failed', 'run.canceled', 'run.expired']);
  });

  it('prints the account secret with accounts webhook-secret and replaces it with --rotate', async () => {
    const shown = await cliJson<{ account_id: string; webhook_secret: string }>(['accounts', 'webhook-secret', accountId], env);
    expect(shown.account_id).to.equal(accountId);
    expect(shown.webhook_secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect((await cliJson<{ webhook_secret: string }>(['accounts', 'webhook-secret', accountId], env)).webhook_secret).to.equal(shown.webhook_secret);
    const rotated = await cliJson<{ webhook_secret: string }>(['accounts', 'webhook-secret', accountId, '--rotate'], env);
    expect(rotated.webhook_secret).to.not.equal(shown.webhook_secret);
    // Deliveries from now on are signed with the new secret.
    await run({ webhook: receiver.url });
    await receiver.until((r) => r.length >= 1);
    const [hook] = receiver.received;
    expect(() => new Webhook(rotated.webhook_secret).verify(hook?.body ?? '', hook?.headers ?? {})).to.not.throw();
    expect(() => new Webhook(shown.webhook_secret).verify(hook?.body ?? '', hook?.headers ?? {})).to.throw();
  });

  it('sends only the subscribed events, run.started first', async () => {
    const runId = await run({ webhook: receiver.url, webhook_events: ['run.started', 'run.succeeded'] });
    await receiver.until((r) => r.length >= 2);
    const types = receiver.received.map((h) => (JSON.parse(h.body) as { type: string; data: { run_id: string } }));
    expect(types.map((t) => [t.type, t.data.run_id])).to.deep.equal([
      ['run.started', runId],
      ['run.succeeded', runId],
    ]);
  });

  it('retries a receiver that fails twice with the same webhook-id, and sends nothing after it succeeds', async () => {
    receiver.answer = (n) => (n < 2 ? 500 : 200);
    const runId = await run({ webhook: receiver.url });
    await receiver.until((r) => r.length >= 3);
    const ids = receiver.received.map((h) => h.headers['webhook-id']);
    expect(new Set(ids).size).to.equal(1);
    // The outbox says delivered after three attempts: no fourth attempt can follow.
    const db = openDatabase({ url: null, dataDir: data.dir });
    try {
      const row = await waitFor(
        async () => {
          const found = (await db('webhook_outbox').where({ run_id: runId }).first('state', 'attempts')) as { state: string; attempts: number } | undefined;
          return found?.state === 'delivered' && found;
        },
        'the outbox row to be delivered',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      expect(row).to.deep.equal({ state: 'delivered', attempts: 3 });
    } finally {
      await db.destroy();
    }
    expect(receiver.received).to.have.length(3);
  });

  it('delivers after a restart an event whose server was killed mid-delivery', async () => {
    receiver.answer = (n) => (n === 0 ? 'hang' : 204);
    const runId = await run({ webhook: receiver.url });
    await receiver.until((r) => r.length >= 1);
    await server.stop('SIGKILL');
    server = await startServerProcess(env);
    api = apiClient(server.url, apiKey);
    await receiver.until((r) => r.length >= 2);
    const [first, second] = receiver.received;
    expect(second?.headers['webhook-id']).to.equal(first?.headers['webhook-id']);
    expect((JSON.parse(second?.body ?? '{}') as { data: { run_id: string } }).data.run_id).to.equal(runId);
  });
});

describe('webhook addresses (a server that refuses private addresses)', function () {
  this.timeout(60_000);
  const data = tempDataDir();
  let server: ServerProcess;
  let api: ApiClient;
  let appVersionId: string;

  before(async () => {
    const env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: 'http://127.0.0.1:9', RUNLOAD_LOG_LEVEL: 'silent' };
    const accountId = (await cliJson<{ account_id: string }>(['accounts', 'create', '--name', 'p', '--tier', 'ultra'], env)).account_id;
    const apiKey = (await cliJson<{ api_key: string }>(['keys', 'create', '--account', accountId], env)).api_key;
    appVersionId = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env)).app_version_id;
    server = await startServerProcess(env);
    api = apiClient(server.url, apiKey);
  });
  after(async () => {
    await server?.stop('SIGTERM');
    data.remove();
  });

  for (const url of ['http://127.0.0.1:8080/hook', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest', 'http://[::1]:80/x', 'http://localhost/x', 'http://192.168.1.1/x', 'ftp://example.com/x']) {
    it(`refuses ${url} at creation with 422 INVALID_REQUEST`, async () => {
      const res = await api.json<{ error: { code: string; message: string } }>('POST', `/api/v1/apps/${appVersionId}`, { inputs: {}, webhook: url });
      expect(res.status).to.equal(422);
      expect(res.body.error.code).to.equal('INVALID_REQUEST');
      expect((await api.json<{ runs: unknown[] }>('GET', '/api/v1/runs')).body.runs).to.have.length(0);
    });
  }
});
