/**
 * Live previews end to end: a fake ComfyUI sends a JPEG at each sampler step; the server keeps
 * the latest and tells event streams of it, on one instance (SQLite, previews in memory) and on
 * two sharing PostgreSQL and Redis. A flood of large frames keeps the server's memory flat and
 * each stream throttled.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { RunloadClient, type RunPreviewEvent } from '@runload/client';
import { apiClient } from './client.js';
import { cliJson, createAccountWithKey, REPO_ROOT, type ServerProcess, startServerProcess, tempDataDir } from './processes.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if ((!pgUrl || !redisUrl) && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL and RUNLOAD_TEST_REDIS_URL');

const SAMPLER_APP = path.join(REPO_ROOT, 'examples/workflows/text-to-image.api.json');

interface StreamEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
  /** When the test received it (ms since the stream opened). */
  readonly atMs: number;
}

/** Follows a run's event stream to its end with the typed client, collecting its events. */
async function readStream(baseUrl: string, key: string, runId: string): Promise<StreamEvent[]> {
  const opened = Date.now();
  const events: StreamEvent[] = [];
  const push = (event: string, data: object) => events.push({ event, data: data as Record<string, unknown>, atMs: Date.now() - opened });
  await new RunloadClient({ baseUrl, apiKey: key }).waitForRun(runId, { onUpdate: (run) => push('run', run), onPreview: (preview) => push('preview', preview) });
  return events;
}

/** One answer of `GET /runs/{id}/preview`. */
interface PreviewAnswer {
  readonly status: number;
  readonly seq: number;
  readonly bytes: Buffer;
  /** The first three bytes (a JPEG starts ff d8 ff). */
  readonly head: number[];
}

async function readPreview(baseUrl: string, key: string, runId: string): Promise<PreviewAnswer> {
  const res = await fetch(`${baseUrl}/api/v1/runs/${runId}/preview`, { headers: { authorization: `Bearer ${key}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, seq: Number(res.headers.get('x-preview-seq')), bytes, head: [...bytes.subarray(0, 3)] };
}

/**
 * Follows a run's event stream to its end, and reads the preview from the same instance as soon as
 * the stream tells of the first one (one call, while the run still runs).
 */
async function followWithFirstPreview(baseUrl: string, key: string, runId: string): Promise<{ events: StreamEvent[]; atFirstEvent: PreviewAnswer | null }> {
  const opened = Date.now();
  const events: StreamEvent[] = [];
  let atFirstEvent: Promise<PreviewAnswer> | null = null;
  const push = (event: string, data: object) => events.push({ event, data: data as Record<string, unknown>, atMs: Date.now() - opened });
  await new RunloadClient({ baseUrl, apiKey: key }).waitForRun(runId, {
    onUpdate: (run) => push('run', run),
    onPreview: (preview) => {
      push('preview', preview);
      atFirstEvent ??= readPreview(baseUrl, key, runId);
    },
  });
  return { events, atFirstEvent: await (atFirstEvent ?? Promise.resolve(null)) };
}

/** The promise's value, or a failure naming what did not happen once `ms` have passed. */
async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The resident memory of a process, in MiB (Linux). */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:')) ?? '';
  return Number(/(\d+)/.exec(line)?.[1] ?? 0) / 1024;
}

async function setUp(env: Record<string, string>) {
  const key = await createAccountWithKey(env, 'p', 'ultra');
  const other = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', 'o', '--tier', 'ultra'], env);
  const otherKey = (await cliJson<{ api_key: string }>(['keys', 'create', '--account', other.account_id], env)).api_key;
  const app = await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Picture', '--workflow', SAMPLER_APP], env);
  return { key, otherKey, appVersionId: app.app_version_id };
}

describe('live previews, end to end', function () {
  this.timeout(120_000);

  describe('one instance, previews in memory', () => {
    const data = tempDataDir();
    let fake: FakeComfyUI;
    let server: ServerProcess;
    let w: Awaited<ReturnType<typeof setUp>>;
    before(async () => {
      fake = await startFakeComfyUI({ executionMs: 600, progressSteps: 8 });
      const env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LOG_LEVEL: 'silent' };
      w = await setUp(env);
      server = await startServerProcess(env);
    });
    after(async () => {
      await server.stop('SIGTERM');
      await fake.close();
      data.remove();
    });

    it("streams the run's previews and answers the latest one, to its owner only", async () => {
      const api = apiClient(server.url, w.key);
      const created = await api.json<{ run_id: string }>('POST', `/api/v1/apps/${w.appVersionId}`, { inputs: {} });
      expect(created.status).to.equal(201);
      const runId = created.body.run_id;
      const events = await readStream(server.url, w.key, runId);
      const previews = events.filter((e) => e.event === 'preview');
      expect(previews.length, JSON.stringify(events.map((e) => e.event))).to.be.greaterThan(0);
      expect(previews[0]?.data).to.deep.include({ run_id: runId, node_id: '3', content_type: 'image/jpeg' });
      expect(events.at(-1)?.data['status']).to.equal('succeeded');

      const res = await fetch(`${server.url}/api/v1/runs/${runId}/preview`, { headers: { authorization: `Bearer ${w.key}` } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('image/jpeg');
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(Number(res.headers.get('x-preview-seq'))).to.be.at.least(Number(previews.at(-1)?.data['seq']));
      expect([...new Uint8Array(await res.arrayBuffer()).subarray(0, 3)]).to.deep.equal([0xff, 0xd8, 0xff]);
      const other = await apiClient(server.url, w.otherKey).json<{ error: { code: string } }>('GET', `/api/v1/runs/${runId}/preview`);
      expect([other.status, other.body.error.code]).to.deep.equal([404, 'RUN_NOT_FOUND']);
    });

    it("gives the typed client's waitForRun each preview, and getRunPreview the latest image", async () => {
      const client = new RunloadClient({ baseUrl: server.url, apiKey: w.key });
      const { run_id } = await client.createRun(w.appVersionId, { inputs: { '3:seed': 3 } });
      const told: RunPreviewEvent[] = [];
      const run = await client.waitForRun(run_id, { onPreview: (p) => told.push(p) });
      expect(run.status).to.equal('succeeded');
      expect(told.length).to.be.greaterThan(0);
      expect(told[0]).to.deep.include({ run_id, node_id: '3', content_type: 'image/jpeg' });
      const latest = await client.getRunPreview(run_id);
      expect(latest.contentType).to.equal('image/jpeg');
      expect(latest.seq).to.be.at.least(told.at(-1)?.seq ?? 1);
      expect(latest.image.size).to.be.greaterThan(0);
      const other = new RunloadClient({ baseUrl: server.url, apiKey: w.otherKey });
      expect(await other.getRunPreview(run_id).catch((e: unknown) => e)).to.include({ code: 'RUN_NOT_FOUND', status: 404 });
    });

    it('keeps its memory flat and each stream throttled under a flood of large previews', async () => {
      const api = apiClient(server.url, w.key);
      // Seven nodes share the execution time: the sampler's 1.4 s carry 500 previews of 256 KiB (350 a second).
      fake.setExecutionMs(10_000);
      fake.setPreviews({ steps: 500, bytes: 256 * 1024 });
      try {
        const before = rssMiB(server.child.pid ?? 0);
        // Another seed: the same prompt again would be served from the backend's cache, with no sampler step.
        const runId = (await api.json<{ run_id: string }>('POST', `/api/v1/apps/${w.appVersionId}`, { inputs: { '3:seed': 7 } })).body.run_id;
        let peak = before;
        const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.child.pid ?? 0))), 50);
        const events = await readStream(server.url, w.key, runId).finally(() => clearInterval(sampler));
        expect(events.at(-1)?.data['status']).to.equal('succeeded');
        const previews = events.filter((e) => e.event === 'preview');
        const span = (previews.at(-1)?.atMs ?? 0) - (previews[0]?.atMs ?? 0);
        expect(previews.length).to.be.greaterThan(1);
        // At most one preview event per 500 ms of the server's clock (a little slack for delivery).
        expect(previews.length, `${previews.length} previews over ${span} ms`).to.be.at.most(Math.floor((span + 250) / 500) + 1);
        // 125 MiB went through the socket; what stays is a few images, not a queue of them.
        expect(peak - before, `RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB`).to.be.lessThan(64);
      } finally {
        fake.setExecutionMs(600);
        fake.setPreviews({ steps: 8, bytes: 0 });
      }
    });
  });

  (pgUrl && redisUrl ? describe : describe.skip)('two instances on PostgreSQL and Redis', () => {
    const data = tempDataDir();
    let scratch: ScratchDatabase | undefined;
    let fake: FakeComfyUI;
    let servers: ServerProcess[] = [];
    let w: Awaited<ReturnType<typeof setUp>>;
    before(async () => {
      scratch = await createScratchDatabase(pgUrl ?? '', 'previews');
      const url = scratch.url;
      // The sampler (one of seven nodes) runs 1.5 s: long enough for each stream to tell of more than one preview.
      fake = await startFakeComfyUI({ executionMs: 10_500, progressSteps: 60 });
      const env = {
        RUNLOAD_DATA_DIR: data.dir,
        RUNLOAD_DATABASE_URL: url,
        RUNLOAD_REDIS_URL: `${redisUrl}`,
        RUNLOAD_COMFYUI_URLS: fake.url,
        RUNLOAD_LOG_LEVEL: 'silent',
      };
      await cliJson(['migrate'], env);
      w = await setUp(env);
      servers = await Promise.all([0, 1].map(() => startServerProcess(env)));
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop('SIGTERM')));
      await fake.close();
      await scratch?.drop();
      data.remove();
    });

    // Every call of the test counts against the account's general limit (120 a minute, shared by both
    // instances through Redis): the test reads each instance's preview when its stream tells of one,
    // never by polling, which on a fast machine spent the whole minute's budget before the sampler ran.
    it('tells the streams of both instances, one of which did not dispatch the run, and both answer the same latest preview', async () => {
      const runId = (await apiClient(servers[0]?.url ?? '', w.key).json<{ run_id: string }>('POST', `/api/v1/apps/${w.appVersionId}`, { inputs: {} })).body.run_id;
      // The deadline covers the fresh pool's first probe and claim as well as the run itself.
      const followed = await withDeadline(
        Promise.all(servers.map((s) => followWithFirstPreview(s.url, w.key, runId))),
        60_000,
        'the run to end on the streams of both instances',
      );
      for (const [i, { events, atFirstEvent }] of followed.entries()) {
        const previews = events.filter((e) => e.event === 'preview');
        expect(previews.length, `instance ${i}: ${JSON.stringify(events.map((e) => e.event))}`).to.be.greaterThan(1);
        expect(previews.every((p) => p.data['run_id'] === runId && p.data['node_id'] === '3')).to.equal(true);
        expect(events.at(-1)?.data['status']).to.equal('succeeded');
        // While the sampler ran, the instance answered the preview its stream had just told of (or a newer one).
        expect(atFirstEvent?.status, `instance ${i}`).to.equal(200);
        expect(atFirstEvent?.seq, `instance ${i}`).to.be.at.least(Number(previews[0]?.data['seq']));
        expect(atFirstEvent?.head).to.deep.equal([0xff, 0xd8, 0xff]);
      }
      // Once the run ended, both answer the same preview: the last one stored, byte for byte.
      const [a, b] = await Promise.all(servers.map((s) => readPreview(s.url, w.key, runId)));
      expect([a?.status, b?.status]).to.deep.equal([200, 200]);
      expect(a?.seq).to.equal(b?.seq);
      expect(Buffer.compare(a?.bytes ?? Buffer.alloc(0), b?.bytes ?? Buffer.alloc(1))).to.equal(0);
      for (const { events } of followed) expect(a?.seq).to.be.at.least(Number(events.filter((e) => e.event === 'preview').at(-1)?.data['seq']));
    });
  });
});
