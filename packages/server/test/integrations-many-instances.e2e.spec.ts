/**
 * Integrations across three server processes sharing PostgreSQL and Redis: one run for ten
 * concurrent requests with one Idempotency-Key, each webhook event delivered once, and a change
 * made on one instance seen on another's event stream within a second.
 */
import { expect } from 'chai';
import path from 'node:path';
import { waitFor } from '@runload/core/testing';
import { openDatabase } from '@runload/storage-adapter';
import { makePng, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { apiClient } from './client.js';
import { cliJson, createAccountWithKey, REPO_ROOT, type ServerProcess, startServerProcess, tempDataDir } from './processes.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if ((!pgUrl || !redisUrl) && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL and RUNLOAD_TEST_REDIS_URL');

(pgUrl && redisUrl ? describe : describe.skip)('integrations on three instances (PostgreSQL, Redis)', function () {
  this.timeout(180_000);
  const data = tempDataDir();
  let scratch: ScratchDatabase | undefined;
  let db: ReturnType<typeof openDatabase>;
  let fake: FakeComfyUI;
  let servers: ServerProcess[] = [];
  let key: string;
  let appVersionId: string;
  let receiver: WebhookReceiver;

  before(async () => {
    scratch = await createScratchDatabase(pgUrl ?? '', 'integ');
    const url = scratch.url;
    fake = await startFakeComfyUI({ executionMs: 20 });
    receiver = await startWebhookReceiver();
    const env = {
      RUNLOAD_DATA_DIR: data.dir,
      RUNLOAD_DATABASE_URL: url,
      RUNLOAD_REDIS_URL: `${redisUrl}`,
      RUNLOAD_COMFYUI_URLS: fake.url,
      RUNLOAD_DISPATCH_DEPTH: '4',
      RUNLOAD_LOG_LEVEL: 'silent',
      RUNLOAD_WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    await cliJson(['migrate'], env);
    key = await createAccountWithKey(env, 'i', 'ultra');
    appVersionId = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env)).app_version_id;
    servers = await Promise.all([0, 1, 2].map(() => startServerProcess(env)));
    db = openDatabase({ url: url, dataDir: data.dir });
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGTERM')));
    await receiver?.close();
    await fake?.close();
    await db?.destroy();
    await scratch?.drop();
    data.remove();
  });

  const client = (i: number) => apiClient(servers[i % 3]?.url ?? '', key);
  const runBody = async (extra: Record<string, unknown> = {}) => ({ inputs: { '1:image': await image() }, ...extra });
  let uploaded: string | null = null;
  const image = async () =>
    (uploaded ??= await client(0).upload(Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082', 'hex'), 'in.png'));

  it('creates exactly one run for 10 concurrent requests with one key spread over three instances', async () => {
    const body = JSON.stringify(await runBody({ inputs: { '1:image': await image(), '2:blur_radius': 3 } }));
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(`${servers[i % 3]?.url}/api/v1/apps/${appVersionId}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'one-order' },
          body,
        }),
      ),
    );
    const statuses = answers.map((r) => `${r.status}${r.headers.get('idempotent-replayed') ? ' replayed' : ''}`);
    expect(statuses.filter((s) => s === '201'), statuses.join(', ')).to.have.length(1);
    expect(statuses.every((s) => s === '201' || s === '201 replayed' || s === '409'), statuses.join(', ')).to.equal(true);
    const bodies = await Promise.all(answers.filter((r) => r.status === 201).map((r) => r.json() as Promise<{ run_id: string }>));
    expect(new Set(bodies.map((b) => b.run_id)).size).to.equal(1);
    const runs = await db('runs').where({ id: bodies[0]?.run_id });
    expect(runs).to.have.length(1);
    expect(Number((await db('runs').count<{ n: string }[]>({ n: '*' }))[0]?.n)).to.equal(1);
  });

  it('replays an upload on another instance and refuses other bytes under its key', async () => {
    const png = (shade: number) => Buffer.from(makePng(4, 4, () => [shade, shade, shade, 255]));
    const upload = (i: number, bytes: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([bytes]), 'photo.png');
      return fetch(`${servers[i]?.url}/api/v1/assets`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'photo-1' }, body: form });
    };
    const first = await upload(0, png(10));
    expect(first.status).to.equal(201);
    const body = await first.json();
    const again = await upload(1, png(10));
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(await again.json()).to.deep.equal(body);
    expect((await upload(2, png(20))).status).to.equal(422);
    expect(await db('assets').where({ sha256: (body as { sha256: string }).sha256 }).count<{ n: string }[]>({ n: '*' })).to.deep.equal([{ n: '1' }]);
  });

  it('delivers each webhook event once although three instances deliver', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const res = await client(i).json<{ run_id: string }>('POST', `/api/v1/apps/${appVersionId}`, await runBody({ webhook: receiver.url, webhook_events: ['run.started', 'run.succeeded'] }));
      expect(res.status).to.equal(201);
      ids.push(res.body.run_id);
    }
    await receiver.until((r) => r.length >= 40, 60_000).catch(async (error: unknown) => {
      const runs = await db('runs').whereIn('id', ids).select('status');
      const outbox = await db('webhook_outbox').whereIn('run_id', ids).select('event_type', 'state', 'attempts', 'last_error', 'lease_owner');
      throw new Error(`${String(error)}\nruns ${JSON.stringify(runs.map((r: { status: string }) => r.status))}\noutbox ${JSON.stringify(outbox)}\n${servers.map((s) => s.stderr().slice(-2000)).join('\n')}`);
    });
    await waitFor(
      async () => Number((await db('webhook_outbox').whereIn('run_id', ids).whereNot({ state: 'delivered' }).count<{ n: string }[]>({ n: '*' }))[0]?.n) === 0,
      'every outbox row of the 20 runs to be delivered',
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const webhookIds = receiver.received.map((h) => h.headers['webhook-id']);
    expect(webhookIds).to.have.length(40);
    expect(new Set(webhookIds).size).to.equal(40);
    const attempts = await db('webhook_outbox').whereIn('run_id', ids).select('state', 'attempts');
    expect(attempts.every((a: { state: string; attempts: number }) => a.state === 'delivered' && Number(a.attempts) === 1)).to.equal(true);
  });

  it('shows a change made on instance A to an event stream on instance B within one second', async () => {
    fake.setExecutionMs(60_000);
    const created = await client(0).json<{ run_id: string }>('POST', `/api/v1/apps/${appVersionId}`, await runBody({ inputs: { '1:image': await image(), '2:blur_radius': 9 } }));
    const runId = created.body.run_id;
    await client(0).waitFor(runId, ['running']);
    const res = await fetch(`${servers[1]?.url}/api/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).to.equal(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const nextStatus = async (): Promise<string> => {
      for (;;) {
        const cut = text.indexOf('\n\n');
        if (cut >= 0) {
          const block = text.slice(0, cut);
          text = text.slice(cut + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) return (JSON.parse(data.slice(6)) as { status: string }).status;
          continue;
        }
        const { done, value } = await reader.read();
        if (done) return 'ended';
        text += new TextDecoder().decode(value);
      }
    };
    expect(await nextStatus()).to.equal('running');
    const asked = Date.now();
    const cancel = await client(2).json<{ status: string }>('POST', `/api/v1/runs/${runId}/cancel`);
    expect(cancel.status).to.equal(200);
    const seen = await nextStatus();
    const elapsed = Date.now() - asked;
    expect(['canceling', 'canceled']).to.include(seen);
    expect(elapsed, `seen after ${elapsed} ms`).to.be.below(1000);
    await reader.cancel();
    fake.setExecutionMs(20);
  });
});
