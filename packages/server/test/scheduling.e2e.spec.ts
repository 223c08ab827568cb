/**
 * The scheduling rules (docs/scheduling.md) end to end: three server processes share one database (SQLite
 * file, then PostgreSQL) and two fake ComfyUI servers configured apart (one also holds
 * sdxl.safetensors), at depth 1. What is checked is what the fakes received.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '@runload/storage-adapter';
import { startFakeComfyUI, type AcceptedPrompt, type FakeComfyUI } from '@runload/fake-comfyui';
import { waitFor } from '@runload/core/testing';
import { apiClient, type ApiClient } from './client.js';
import { cliJson, REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if ((!pgUrl || !redisUrl) && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL and RUNLOAD_TEST_REDIS_URL');

const TEXT_TO_IMAGE = JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples/workflows/text-to-image.api.json'), 'utf8')) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;

/** Text to image with this checkpoint, on a small canvas (the fake paints and encodes real PNGs). */
function withCheckpoint(name: string, prefix: string) {
  return {
    ...TEXT_TO_IMAGE,
    '4': { ...TEXT_TO_IMAGE['4'], inputs: { ckpt_name: name } },
    '5': { ...TEXT_TO_IMAGE['5'], inputs: { width: 64, height: 64, batch_size: 1 } },
    '9': { ...TEXT_TO_IMAGE['9'], inputs: { ...TEXT_TO_IMAGE['9']?.inputs, filename_prefix: prefix } },
  };
}

/** The run id a prompt carries (runload marks every prompt it sends). */
const runOf = (p: AcceptedPrompt) => String(p.extra_data['runload_run_id']);

/**
 * Runs claimed ahead (RUNLOAD_DISPATCH_AHEAD) only in the last: the first two claim a backend's next
 * run once it is free. In the last, a backend's next run is claimed 20 ms before the run there is
 * expected to end: the fakes' 60 ms runs are long enough for it (the default lead, 50 ms, leaves
 * runs shorter than 100 ms alone).
 */
const AHEAD_LEAD_MS = 20;
for (const [dialect, ahead] of [['sqlite', false], ['postgres', false], ['postgres', true]] as const) {
  (dialect === 'sqlite' || (pgUrl && redisUrl) ? describe : describe.skip)(`scheduling across three instances on ${dialect}${ahead ? ', next runs claimed ahead' : ''}`, function () {
    this.timeout(120_000);
    const data = tempDataDir();
    const dbName = `runload_sched_${randomBytes(4).toString('hex')}`;
    const admin = dialect === 'postgres' ? openDatabase({ url: pgUrl ?? null, dataDir: data.dir }) : null;
    /** The instances' own database (PostgreSQL), to see what the API does not show. */
    let scratch: ReturnType<typeof openDatabase> | null = null;
    const database = () => {
      if (!scratch) throw new Error('no database of the instances to read');
      return scratch;
    };
    let withSdxl: FakeComfyUI;
    let plain: FakeComfyUI;
    let servers: ServerProcess[] = [];
    let clients: { a: ApiClient; b: ApiClient }[] = [];
    const apps: Record<string, string> = {};

    before(async () => {
      withSdxl = await startFakeComfyUI({ executionMs: 60, checkpoints: ['v1-5-pruned-emaonly.safetensors', 'sdxl.safetensors'] });
      plain = await startFakeComfyUI({ executionMs: 60 });
      // The tests poll many runs back to back with one key: the general limit is raised so they never meet it.
      const limitsFile = path.join(data.dir, 'limits.json');
      writeFileSync(limitsFile, JSON.stringify({ general_per_minute: 100_000 }));
      const env: Record<string, string> = {
        RUNLOAD_DATA_DIR: data.dir,
        RUNLOAD_LIMITS_FILE: limitsFile,
        RUNLOAD_COMFYUI_URLS: `${withSdxl.url},${plain.url}`,
        RUNLOAD_DISPATCH_DEPTH: '1',
        RUNLOAD_DISPATCH_AHEAD: String(ahead),
        RUNLOAD_DISPATCH_AHEAD_LEAD_MS: String(AHEAD_LEAD_MS),
        RUNLOAD_LEASE_SECONDS: '5',
        RUNLOAD_LOG_LEVEL: 'silent',
        ...(redisUrl ? { RUNLOAD_REDIS_URL: redisUrl } : {}),
      };
      if (admin) {
        await admin.raw(`CREATE DATABASE ${dbName}`);
        const url = new URL(pgUrl ?? '');
        url.pathname = `/${dbName}`;
        env['RUNLOAD_DATABASE_URL'] = url.toString();
        scratch = openDatabase({ url: url.toString(), dataDir: data.dir });
      }
      await cliJson(['migrate'], env);
      const keyOf = async (name: string) => {
        const account = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', name, '--tier', 'ultra'], env);
        return (await cliJson<{ api_key: string }>(['keys', 'create', '--account', account.account_id], env)).api_key;
      };
      const [keyA, keyB] = [await keyOf('a'), await keyOf('b')];
      // The last app was published while a server that had its checkpoint was in the pool; it is gone now.
      const gone = await startFakeComfyUI({ checkpoints: ['missing.safetensors'] });
      for (const [name, ckpt] of [['v15', 'v1-5-pruned-emaonly.safetensors'], ['other', 'v1-5-pruned-emaonly.safetensors'], ['sdxl', 'sdxl.safetensors'], ['missing', 'missing.safetensors']] as const) {
        const file = path.join(data.dir, `${name}.json`);
        writeFileSync(file, JSON.stringify(withCheckpoint(ckpt, name)));
        const publishEnv = name === 'missing' ? { ...env, RUNLOAD_COMFYUI_URLS: gone.url } : env;
        apps[name] = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', name, '--workflow', file, '--expose', '3:seed'], publishEnv)).app_version_id;
      }
      await gone.close();
      servers = await Promise.all([0, 1, 2].map(() => startServerProcess(env)));
      clients = servers.map((s) => ({ a: apiClient(s.url, keyA), b: apiClient(s.url, keyB) }));
    });

    after(async () => {
      await Promise.all(servers.map((s) => s.stop('SIGTERM')));
      for (const f of [withSdxl, plain]) await f?.close();
      await scratch?.destroy();
      if (admin) {
        await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
        await admin.destroy();
      }
      data.remove();
    });

    let seed = 0;
    const create = async (client: ApiClient, app: string) => {
      seed += 1;
      const res = await client.json<{ run_id: string }>('POST', `/api/v1/apps/${apps[app]}`, { inputs: { '3:seed': seed } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.run_id;
    };
    const client = (i: number) => clients[i % 3] as { a: ApiClient; b: ApiClient };
    const promptsOf = (ids: readonly string[]) => {
      const set = new Set(ids);
      return { sdxl: withSdxl.prompts.filter((p) => set.has(runOf(p))), plain: plain.prompts.filter((p) => set.has(runOf(p))) };
    };

    it('never puts a second prompt on a backend at depth 1, whichever of the three instances claims', async () => {
      const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => create(client(i).a, i % 2 ? 'v15' : 'other')));
      await Promise.all(ids.map((id, i) => client(i).a.waitFor(id, ['succeeded'], 60_000)));
      for (const fake of [withSdxl, plain]) {
        const held = fake.prompts.filter((p) => ids.includes(runOf(p))).sort((x, y) => x.received_at - y.received_at);
        for (let i = 1; i < held.length; i += 1) {
          const previous = held[i - 1] as AcceptedPrompt;
          expect((held[i] as AcceptedPrompt).received_at, `prompt ${i} arrived before the one before it finished`).to.be.at.least(fake.finishedAt.get(previous.prompt_id) ?? Infinity);
        }
      }
      const { sdxl, plain: other } = promptsOf(ids);
      expect(sdxl.length + other.length).to.equal(12);
    });

    it('sends runs needing a model only to the backend that has it, and refuses an app no backend can run with 503', async () => {
      const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => create(client(i).a, 'sdxl')));
      await Promise.all(ids.map((id, i) => client(i).a.waitFor(id, ['succeeded'], 60_000)));
      expect(promptsOf(ids).sdxl).to.have.length(6);
      expect(promptsOf(ids).plain).to.have.length(0);
      const refused = await client(0).a.json<{ error: { code: string; message: string } }>('POST', `/api/v1/apps/${apps['missing']}`, { inputs: {} });
      expect(refused.status).to.equal(503);
      expect(refused.body.error.code).to.equal('SERVICE_UNAVAILABLE');
      expect(refused.body.error.message).to.equal('no backend has checkpoint missing.safetensors');
    });

    it(`does not delay another account's first run behind 20 queued runs of one account by more than one run${ahead ? ', and one per backend claimed ahead' : ''}`, async () => {
      // Both backends held while the queues form, so at the other account's create each backend has
      // exactly one of the busy account's runs and no claim is in transit: what follows is the order.
      withSdxl.pause();
      plain.pause();
      const many: string[] = [];
      let mine = '';
      let createdAt = 0;
      try {
        for (let i = 0; i < 20; i += 1) many.push(await create(client(i).a, 'v15'));
        await waitFor(() => withSdxl.prompts.some((p) => many.includes(runOf(p))) && plain.prompts.some((p) => many.includes(runOf(p))), 'each backend to hold one run of the busy account');
        mine = await create(client(1).b, 'v15');
        createdAt = performance.timeOrigin + performance.now();
      } finally {
        withSdxl.resume();
        plain.resume();
      }
      await client(1).b.waitFor(mine, ['succeeded'], 60_000);
      const all = [...withSdxl.prompts, ...plain.prompts];
      const mineAt = all.find((p) => runOf(p) === mine)?.received_at ?? Infinity;
      const before = all.filter((p) => many.includes(runOf(p)) && p.received_at > createdAt && p.received_at < mineAt);
      // Claimed ahead, each backend's next run may have been decided before the other account
      // queued (the paused runs were due to end by then): one more per backend (two) than without,
      // where one run of the busy account may start at the other backend at the very moment the
      // other account's run starts.
      expect(before.length, 'runs of the busy account started after the other account queued and before its run').to.be.at.most(ahead ? 3 : 1);
      await Promise.all(many.map((id, i) => client(i).a.waitFor(id, ['succeeded'], 60_000)));
    });

    // Only where claiming ahead is on (a test of it elsewhere would be skipped, not run).
    if (ahead) it('claims a full backend\'s next run ahead once its run is due to end, which waits placed, is canceled at once and never reaches a backend', async () => {
      // Each instance learns how long the app's runs take from runs it dispatched itself: one run
      // created at each instance in turn, each most likely claimed by the instance that created it.
      for (let i = 0; i < 9; i += 1) await client(i).a.waitFor(await create(client(i).a, 'v15'), ['succeeded'], 30_000);
      withSdxl.pause();
      plain.pause();
      const ids: string[] = [];
      let canceled: string[] = [];
      try {
        for (let i = 0; i < 6; i += 1) ids.push(await create(client(i).a, 'v15'));
        // A run on each backend (held there by the paused fakes), the next claimed to wait behind
        // it once it is due to end, the rest queued.
        const waitingRuns = async () => (await database().from('runs').whereIn('id', ids).where({ waits_for_room: true }).select('id')).map((r: { id: string }) => r.id);
        await waitFor(async () => (await waitingRuns()).length > 0, 'a run claimed to wait behind the run on its backend');
        canceled = await waitingRuns();
        const statuses = await Promise.all(canceled.map(async (id) => (await client(2).a.json<{ status: string }>('POST', `/api/v1/runs/${id}/cancel`)).body.status));
        expect(statuses, 'a run waiting at a backend is canceled at once').to.deep.equal(canceled.map(() => 'canceled'));
        const onBackends = new Set([...withSdxl.prompts, ...plain.prompts].map(runOf));
        for (const id of canceled) expect(onBackends.has(id), 'a waiting run is not on its backend').to.equal(false);
      } finally {
        withSdxl.resume();
        plain.resume();
      }
      const ends = await Promise.all(ids.map(async (id, i) => (await client(i).a.waitFor(id, ['succeeded', 'canceled'], 60_000))['status']));
      expect(ends.filter((s) => s === 'succeeded')).to.have.length(ids.length - canceled.length);
      const sent = [...withSdxl.prompts, ...plain.prompts].map(runOf).filter((id) => ids.includes(id));
      expect(sent.length, 'each run sent once, the canceled ones never').to.equal(ids.length - canceled.length);
      expect(new Set(sent).size).to.equal(sent.length);
      for (const id of canceled) expect(sent).to.not.include(id);
    });

    it('keeps each of two app versions on its own backend whatever order they are created in', async () => {
      const order = ['v15', 'other', 'other', 'v15', 'v15', 'other', 'v15', 'other', 'other', 'v15'];
      const byApp: Record<string, string[]> = { v15: [], other: [] };
      for (const [i, app] of order.entries()) {
        const id = await create(client(i).a, app);
        byApp[app]?.push(id);
        await client(i).a.waitFor(id, ['succeeded'], 30_000);
      }
      const home = (ids: readonly string[]) => {
        const { sdxl, plain: other } = promptsOf(ids);
        return { sdxl: sdxl.length, plain: other.length };
      };
      const v15 = home(byApp['v15'] ?? []);
      const other = home(byApp['other'] ?? []);
      expect([v15.sdxl, v15.plain].sort(), 'the first version kept to one backend').to.deep.equal([0, 5]);
      expect(other, 'the second version kept to the other one').to.deep.equal({ sdxl: v15.plain, plain: v15.sdxl });
    });
  });
}
