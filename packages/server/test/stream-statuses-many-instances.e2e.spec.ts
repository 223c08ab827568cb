/**
 * Sub-second runs on two server processes sharing PostgreSQL and Redis: an event stream on each
 * instance shows every status the run passes through (queued, running, succeeded), in order,
 * whichever instance dispatched it, each within a second of the change.
 */
import { expect } from 'chai';
import path from 'node:path';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { apiClient } from './client.js';
import { cliJson, createAccountWithKey, REPO_ROOT, type ServerProcess, startServerProcess, tempDataDir } from './processes.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if ((!pgUrl || !redisUrl) && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL and RUNLOAD_TEST_REDIS_URL');

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082', 'hex');

interface Seen {
  readonly status: string;
  readonly atMs: number;
}

/** Reads a run's event stream to its end: each run record's status and when it arrived here. */
async function statusesOf(res: Response): Promise<Seen[]> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const seen: Seen[] = [];
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return seen;
    const atMs = Date.now();
    text += decoder.decode(value, { stream: true });
    for (let cut = text.indexOf('\n\n'); cut >= 0; cut = text.indexOf('\n\n')) {
      const lines = text.slice(0, cut).split('\n');
      text = text.slice(cut + 2);
      const data = lines.find((l) => l.startsWith('data: '));
      if (lines.includes('event: run') && data) seen.push({ status: (JSON.parse(data.slice(6)) as { status: string }).status, atMs });
    }
  }
}

/** The statuses in the order they came, each once (a status is sent again when progress changes). */
const distinct = (seen: readonly Seen[]) => seen.map((s) => s.status).filter((s, i, all) => s !== all[i - 1]);

(pgUrl && redisUrl ? describe : describe.skip)('every status of a sub-second run on the event streams of two instances (PostgreSQL, Redis)', function () {
  this.timeout(180_000);
  const data = tempDataDir();
  let scratch: ScratchDatabase | undefined;
  let fake: FakeComfyUI;
  let servers: ServerProcess[] = [];
  let key: string;
  let appVersionId: string;

  before(async () => {
    scratch = await createScratchDatabase(pgUrl ?? '', 'streams');
    const url = scratch.url;
    // A run executes in about 30 ms: far less than any periodic read of the storage.
    fake = await startFakeComfyUI({ executionMs: 30 });
    const env = {
      RUNLOAD_DATA_DIR: data.dir,
      RUNLOAD_DATABASE_URL: url,
      RUNLOAD_REDIS_URL: `${redisUrl}`,
      RUNLOAD_COMFYUI_URLS: fake.url,
      RUNLOAD_LOG_LEVEL: 'silent',
    };
    await cliJson(['migrate'], env);
    key = await createAccountWithKey(env, 's', 'ultra');
    appVersionId = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env)).app_version_id;
    servers = await Promise.all([0, 1].map(() => startServerProcess(env)));
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGTERM')));
    await fake?.close();
    await scratch?.drop();
    data.remove();
  });

  it('shows queued, running and succeeded on both instances, each within a second of the change', async () => {
    const client = apiClient(servers[0]?.url ?? '', key);
    const image = await client.upload(PNG, 'in.png');
    for (let round = 0; round < 3; round += 1) {
      // Held on the backend until both streams are open, then executed in one go.
      fake.pause();
      const created = await client.json<{ run_id: string }>('POST', `/api/v1/apps/${appVersionId}`, { inputs: { '1:image': image, '2:blur_radius': round + 1 } });
      expect(created.status).to.equal(201);
      const runId = created.body.run_id;
      const streams = await Promise.all(
        servers.map(async (s) => {
          const res = await fetch(`${s.url}/api/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}` } });
          expect(res.status).to.equal(200);
          return res;
        }),
      );
      const reading = streams.map((res) => statusesOf(res));
      fake.resume();
      const seen = await Promise.all(reading);
      const run = (await client.json<{ status: string; started_at: string; finished_at: string }>('GET', `/api/v1/runs/${runId}`)).body;
      expect(run.status).to.equal('succeeded');
      const ranMs = Date.parse(run.finished_at) - Date.parse(run.started_at);
      for (const [i, s] of seen.entries()) {
        expect(distinct(s), `instance ${i}, round ${round} (the run took ${ranMs} ms)`).to.deep.equal(['queued', 'running', 'succeeded']);
        const running = s.find((e) => e.status === 'running')?.atMs ?? 0;
        const succeeded = s.find((e) => e.status === 'succeeded')?.atMs ?? 0;
        expect(running - Date.parse(run.started_at), `running on instance ${i}, round ${round}`).to.be.below(1000);
        expect(succeeded - Date.parse(run.finished_at), `succeeded on instance ${i}, round ${round}`).to.be.below(1000);
      }
    }
  });
});
