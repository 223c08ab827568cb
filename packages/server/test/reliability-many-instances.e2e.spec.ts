/**
 * Two failures of hostile use, on three server processes sharing PostgreSQL, Redis and one blob
 * directory: parallel creates spread over the instances cannot get past an account's GPU quota,
 * and an instance killed with SIGKILL just after an upload's body arrived never leaves an asset
 * listed without its bytes; what such kills leave is removed when an instance starts. And an
 * instance stopped while an output drips in stops within its bound, another finishing the run.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { openDatabase } from '@runload/storage-adapter';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { waitFor } from '@runload/core/testing';
import { apiClient } from './client.js';
import { cliJson, REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if ((!pgUrl || !redisUrl) && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL and RUNLOAD_TEST_REDIS_URL');

/** A WAV file of `bytes` bytes of noise (a media type uploads accept), different each call. */
function wav(bytes: number): Buffer {
  const data = randomBytes(bytes - 44);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(bytes - 8, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(44_100, 24);
  header.writeUInt32LE(88_200, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/**
 * Sends an upload's whole body to `url` and calls `sent` once the last byte is handed to the
 * socket; the answer (if any: the server may be killed) is ignored.
 */
function uploadBody(url: string, apiKey: string, file: Buffer, sent: () => void): void {
  const boundary = `----relia${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="noise.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Buffer.concat([head, file, tail]);
  const req = http.request(`${url}/api/v1/assets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
  });
  req.on('error', () => undefined);
  req.on('response', (res) => res.resume());
  req.end(body, sent);
}

(pgUrl && redisUrl ? describe : describe.skip)('hostile use on three instances (PostgreSQL and Redis)', function () {
  this.timeout(300_000);
  const data = tempDataDir();
  let scratch: ScratchDatabase | undefined;
  let db: ReturnType<typeof openDatabase>;
  let fake: FakeComfyUI;
  let servers: ServerProcess[] = [];
  let env: Record<string, string>;
  let appVersionId: string;

  async function key(name: string, tier: string): Promise<string> {
    const account = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', name, '--tier', tier], env);
    return (await cliJson<{ api_key: string }>(['keys', 'create', '--account', account.account_id], env)).api_key;
  }

  before(async () => {
    scratch = await createScratchDatabase(pgUrl ?? '', 'relia');
    const url = scratch.url;
    db = openDatabase({ url: url, dataDir: data.dir });
    fake = await startFakeComfyUI({ executionMs: 3000 });
    const limitsFile = path.join(data.dir, 'limits.json');
    writeFileSync(limitsFile, JSON.stringify({ tiers: { starter: { gpu_seconds_per_month: 10, runs_per_minute: 1000, runs_per_hour: 1000 } } }));
    env = {
      RUNLOAD_DATA_DIR: data.dir,
      RUNLOAD_DATABASE_URL: url,
      RUNLOAD_REDIS_URL: `${redisUrl}`,
      RUNLOAD_COMFYUI_URLS: fake.url,
      RUNLOAD_LIMITS_FILE: limitsFile,
      RUNLOAD_LEASE_SECONDS: '5',
      RUNLOAD_LOG_LEVEL: 'silent',
    };
    await cliJson(['migrate'], env);
    appVersionId = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Noise', '--workflow', path.join(REPO_ROOT, 'examples/workflows/text-to-image.api.json')], env)).app_version_id;
    servers = await Promise.all([0, 1, 2].map(() => startServerProcess(env)));
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGTERM')));
    await fake.close();
    await db?.destroy();
    await scratch?.drop();
    data.remove();
  });

  it('admits from 30 parallel creates over three instances no more runs than sequential creates admit under the GPU quota', async () => {
    // One finished run of about 3 GPU-seconds makes the app's estimate.
    const ultra = apiClient(servers[0]?.url ?? '', await key('u', 'ultra'));
    const first = await ultra.json<{ run_id: string }>('POST', `/api/v1/apps/${appVersionId}`, { inputs: {} });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const done = await ultra.waitFor(first.body.run_id, ['succeeded', 'failed'], 60_000);
    expect(done['status']).to.equal('succeeded');
    // Runs stay in flight from now on (queued on a paused backend): each counts its estimate.
    fake.pause();
    const create = (url: string, apiKey: string) =>
      fetch(`${url}/api/v1/apps/${appVersionId}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: '{"inputs":{}}' }).then(async (r) => ({
        status: r.status,
        code: r.status === 201 ? null : ((await r.json()) as { error?: { code?: string } }).error?.code ?? null,
      }));
    const sequentialKey = await key('seq', 'starter');
    const sequential: number[] = [];
    for (let i = 0; i < 12; i += 1) sequential.push((await create(servers[i % 3]?.url ?? '', sequentialKey)).status);
    const admittedInSequence = sequential.filter((s) => s === 201).length;
    expect(admittedInSequence, `sequential answers ${sequential.join(',')}`).to.be.within(1, 11);

    const parallelKey = await key('par', 'starter');
    const parallel = await Promise.all(Array.from({ length: 30 }, (_, i) => create(servers[i % 3]?.url ?? '', parallelKey)));
    const admitted = parallel.filter((a) => a.status === 201).length;
    expect(parallel.filter((a) => a.status !== 201).map((a) => a.code ?? a.status).filter((c) => c !== 'GPU_QUOTA_EXCEEDED'), 'refusals other than the quota').to.deep.equal([]);
    expect(admitted, 'parallel creates admitted').to.equal(admittedInSequence);
    fake.resume();
  });

  it('stops an instance within its bound while an output drips in, and another instance stores the run once', async () => {
    // Earlier runs end first (fast), so the one dripping is this test's.
    fake.setExecutionMs(100);
    await waitFor(async () => Number((await db('runs').whereNotIn('status', ['succeeded', 'failed', 'canceled', 'expired']).count({ n: '*' }))[0]?.['n'] ?? 0) === 0, 'the earlier runs to end', { timeoutMs: 120_000, intervalMs: 500 });
    // Named instances, so the one downloading is known by its lease.
    await Promise.all(servers.map((s) => s.stop('SIGTERM')));
    servers = await Promise.all([0, 1, 2].map((n) => startServerProcess({ ...env, RUNLOAD_INSTANCE_ID: `relia-${n}` })));
    const apiKey = await key('drip', 'ultra');
    const api = apiClient(servers[0]?.url ?? '', apiKey);
    fake.setViewDrip(5000);
    const views = fake.requestCounts.get('GET /view') ?? 0;
    const created = await api.json<{ run_id: string }>('POST', `/api/v1/apps/${appVersionId}`, { inputs: {} });
    expect(created.status).to.equal(201);
    const runId = created.body.run_id;
    await waitFor(() => (fake.requestCounts.get('GET /view') ?? 0) > views, 'the output download to begin', { timeoutMs: 30_000 });
    const owner = String((await db('runs').where({ id: runId }).first('lease_owner'))?.['lease_owner']);
    const index = Number(/^relia-(\d)$/.exec(owner)?.[1] ?? NaN);
    expect(index, `the run's owner ${owner}`).to.be.within(0, 2);
    const downloading = servers[index] as ServerProcess;
    // The download under way keeps its drip; the next one (by whoever adopts the run, which may
    // happen as soon as the stopping instance lets its lease go, before its process is gone) does not.
    fake.setViewDrip(0);
    try {
      let deadline: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        downloading.stop('SIGTERM'),
        new Promise<string>((resolve) => (deadline = setTimeout(() => resolve('still running 10 s after SIGTERM'), 10_000))),
      ]);
      clearTimeout(deadline);
      expect(outcome, downloading.stderr()).to.equal(0);
      const other = apiClient(servers[(index + 1) % 3]?.url ?? '', apiKey);
      const run = await other.waitFor(runId, ['succeeded', 'failed', 'canceled', 'expired'], 60_000);
      expect(run['status'], JSON.stringify(run['error'])).to.equal('succeeded');
      expect(run['outputs'] as unknown[]).to.have.length(1);
      expect(fake.prompts.filter((p) => p.extra_data['runload_run_id'] === runId), 'sent once').to.have.length(1);
      const used = (await other.json<{ gpu_seconds_used: number }>('GET', '/api/v1/account')).body.gpu_seconds_used;
      expect(used, 'charged once').to.be.closeTo((run['metrics'] as { gpu_seconds: number }).gpu_seconds, 0.002);
    } finally {
      // Back to three instances even when a check failed, so the next test does not wait on a dead one.
      await downloading.stop('SIGKILL');
      servers[index] = await startServerProcess({ ...env, RUNLOAD_INSTANCE_ID: `relia-${index}` });
    }
  });

  it('never lists an asset without its bytes when an instance is killed just after an upload arrives, and a start removes what the kills left', async () => {
    const apiKey = await key('up', 'ultra');
    const size = 40 * 1024 * 1024;
    for (let round = 0; round < 6; round += 1) {
      const i = round % 3;
      const target = servers[i] as ServerProcess;
      // Killed 30 to 70 ms after the last byte of the body left this process.
      const killed = new Promise<void>((resolve) => uploadBody(target.url, apiKey, wav(size), () => setTimeout(() => void target.stop('SIGKILL').then(() => resolve()), 30 + ((round * 8) % 41))));
      await killed;
      servers[i] = await startServerProcess(env);
    }
    type Listed = { asset_id: string; size: number; sha256: string };
    for (const server of servers) {
      const api = apiClient(server.url, apiKey);
      const listed = (await api.json<{ assets: Listed[] }>('GET', '/api/v1/assets?limit=100')).body.assets;
      for (const asset of listed) {
        const res = await fetch(`${server.url}/api/v1/assets/${asset.asset_id}/content`, { headers: { authorization: `Bearer ${apiKey}` } });
        expect(res.status, `asset ${asset.asset_id} listed by ${server.url}`).to.equal(200);
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(bytes.length).to.equal(asset.size);
        expect(createHash('sha256').update(bytes).digest('hex')).to.equal(asset.sha256);
      }
    }
    // Records a kill left pending, made older than any live writer could be, are gone after a start.
    await db('assets').where({ pending: true }).update({ created_at: db.raw('created_at - ?', [11 * 60_000]) });
    await servers[0]?.stop('SIGTERM');
    servers[0] = await startServerProcess(env);
    await waitFor(async () => Number((await db('assets').where({ pending: true }).count({ n: '*' }))[0]?.['n'] ?? 0) === 0, 'the pending records to be removed at start', { timeoutMs: 30_000 });
  });
});
