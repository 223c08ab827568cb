/**
 * The pool as data, end to end: three server processes on PostgreSQL and Redis, fake ComfyUI
 * servers (one of them a process killed outright), the CLI changing the pool at runtime.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { waitFor } from '@runload/core/testing';
import { apiClient, type ApiClient } from './client.js';
import { cli, cliJson, REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if ((!pgUrl || !redisUrl) && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL and RUNLOAD_TEST_REDIS_URL');

const TEXT = path.join(REPO_ROOT, 'examples/workflows/text-to-image.api.json');

/** A fake ComfyUI as a process of its own, so it can be killed outright. */
async function fakeProcess(executionMs: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--conditions=@runload/source', '--import', 'tsx', path.join(REPO_ROOT, 'packages/fake-comfyui/src/main.ts'), '--port', '0', '--execution-ms', String(executionMs)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`fake exited ${code}`)));
  });
  return { url, child };
}

type Backend = { backend_id: string; url: string; state: string; held: number; labels: Record<string, string>; has_auth: boolean };

(pgUrl && redisUrl ? describe : describe.skip)('the pool as data across three instances on PostgreSQL and Redis', function () {
  this.timeout(120_000);
  const data = tempDataDir();
  let scratch: ScratchDatabase | undefined;
  let a: FakeComfyUI;
  let c: FakeComfyUI;
  let b: { url: string; child: ChildProcess };
  let servers: ServerProcess[] = [];
  let env: Record<string, string>;
  let api: ApiClient[];
  let plain: string;
  let onA100: string;

  const backends = async () => (await cliJson<{ backends: Backend[] }>(['backends', 'list'], env)).backends;
  const createRun = async (i: number, app: string) => {
    const res = await (api[i % 3] as ApiClient).json<{ run_id: string }>('POST', `/api/v1/apps/${app}`, { inputs: { '3:seed': i } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.run_id;
  };
  const runIdsOn = (fake: { prompts: readonly { extra_data: Record<string, unknown> }[] }) => fake.prompts.map((p) => String(p.extra_data['runload_run_id']));

  before(async () => {
    scratch = await createScratchDatabase(pgUrl ?? '', 'pool');
    const url = scratch.url;
    a = await startFakeComfyUI({ executionMs: 300 });
    c = await startFakeComfyUI({ executionMs: 300 });
    b = await fakeProcess(2500);
    // Polls from every test share one minute window: the general limit must not be what a test meets.
    const limitsFile = path.join(data.dir, 'limits.json');
    writeFileSync(limitsFile, JSON.stringify({ general_per_minute: 100_000 }));
    env = {
      RUNLOAD_LIMITS_FILE: limitsFile,
      RUNLOAD_DATA_DIR: data.dir,
      RUNLOAD_DATABASE_URL: url,
      RUNLOAD_REDIS_URL: `${redisUrl}`,
      RUNLOAD_COMFYUI_URLS: a.url,
      RUNLOAD_LEASE_SECONDS: '4',
      RUNLOAD_LOG_LEVEL: 'silent',
    };
    await cliJson(['migrate'], env);
    const account = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', 'p', '--tier', 'ultra'], env);
    const key = (await cliJson<{ api_key: string }>(['keys', 'create', '--account', account.account_id], env)).api_key;
    servers = await Promise.all([0, 1, 2].map(() => startServerProcess(env)));
    api = servers.map((s) => apiClient(s.url, key));
    plain = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'T2I', '--workflow', TEXT], env)).app_version_id;
    onA100 = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'T2I on A100', '--workflow', TEXT, '--require', 'gpu=a100'], env)).app_version_id;
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGTERM')));
    if (b.child.exitCode === null) b.child.kill('SIGKILL');
    await a.close();
    await c.close();
    await scratch?.drop();
    data.remove();
  });

  it('lists the configured server as a static backend; a URL with credentials is refused, naming the options', async () => {
    const list = await backends();
    expect(list.map((x) => [x.url, x.state])).to.deep.equal([[a.url, 'active']]);
    const refused = await cli(['backends', 'add', 'http://user:pw@gpu-9:8188', '--json'], env);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('--auth-header').and.not.include('pw@');
  });

  it('sends runs to a backend added at runtime within 5 s, from every instance, and only labelled backends take a version that requires labels', async () => {
    const refused = await (api[0] as ApiClient).json<{ error: { code: string; message: string } }>('POST', `/api/v1/apps/${onA100}`, { inputs: {} });
    expect([refused.status, refused.body.error.code, refused.body.error.message]).to.deep.equal([503, 'SERVICE_UNAVAILABLE', 'no backend has labels gpu=a100']);
    const added = await cliJson<Backend>(['backends', 'add', b.url, '--label', 'gpu=a100', '--auth-header', 'X-Key: s3cret'], env);
    expect(added).to.deep.include({ url: b.url, state: 'active', labels: { gpu: 'a100' }, has_auth: true });
    expect(JSON.stringify(added)).to.not.include('s3cret');
    const addedAt = Date.now();
    // Each instance creates a run once it knows the backend (within 5 s of the change).
    const ids = await Promise.all(
      [0, 1, 2].map((i) =>
        waitFor(
          async () => {
            const res = await (api[i] as ApiClient).json<{ run_id: string }>('POST', `/api/v1/apps/${onA100}`, { inputs: { '3:seed': i } });
            return res.status === 201 && res.body.run_id;
          },
          `instance ${i} to know the new backend`,
          { timeoutMs: 5000, intervalMs: 200 },
        ),
      ),
    );
    expect(Date.now() - addedAt).to.be.below(5000);
    for (const id of ids) {
      const run = await (api[0] as ApiClient).waitFor(id, ['succeeded', 'failed'], 30_000);
      expect(run['status']).to.equal('succeeded');
    }
    expect(runIdsOn(a)).to.not.include.members(ids);
  });

  it('fails a run over to another backend when its backend is killed mid-run: succeeded, attempts 2, charged once', async () => {
    // C can run it too, but takes nothing until B is gone.
    await cliJson(['backends', 'add', c.url, '--label', 'gpu=a100'], env);
    await cliJson(['backends', 'drain', c.url], env);
    const id = await createRun(7, onA100);
    await (api[1] as ApiClient).waitFor(id, ['running'], 20_000);
    b.child.kill('SIGKILL');
    await cliJson(['backends', 'activate', c.url], env);
    const run = await (api[2] as ApiClient).waitFor(id, ['succeeded', 'failed'], 60_000);
    expect([run['status'], run['attempts']]).to.deep.equal(['succeeded', 2]);
    expect(runIdsOn(c)).to.include(id);
    const account = (await (api[0] as ApiClient).json<{ gpu_seconds_used: number }>('GET', '/api/v1/account')).body;
    const finished = (await (api[0] as ApiClient).json<{ runs: { metrics: { gpu_seconds: number | null } }[] }>('GET', '/api/v1/runs?limit=100')).body.runs;
    const charged = finished.reduce((sum, r) => sum + (r.metrics.gpu_seconds ?? 0), 0);
    expect(account.gpu_seconds_used, 'the lost attempt costs nothing').to.be.closeTo(charged, 0.01);
  });

  it('gives a drained backend no prompt after the drain, and ends it drained once its runs are done', async () => {
    const removed = await cliJson<Backend & { removed: boolean }>(['backends', 'remove', b.url, '--force'], env);
    expect(removed.removed).to.equal(true);
    await cliJson(['backends', 'drain', c.url], env);
    // A holds one run when it is drained.
    const held = await createRun(20, plain);
    await waitFor(() => runIdsOn(a).includes(held), 'the run to reach A', { timeoutMs: 10_000 });
    const drained = await cliJson<Backend>(['backends', 'drain', a.url], env);
    expect(drained.state).to.equal('draining');
    const before = a.prompts.length;
    const later = [await createRun(21, plain), await createRun(22, plain)];
    await (api[0] as ApiClient).waitFor(held, ['succeeded'], 20_000);
    await waitFor(async () => (await backends()).find((x) => x.url === a.url)?.state === 'drained', 'A to end drained', { timeoutMs: 10_000, intervalMs: 300 });
    expect(a.prompts.length, 'no prompt after the drain').to.equal(before);
    // Waiting for capacity now (every backend drained): the autoscaler's signal.
    const metrics = await (await fetch(`${servers[0]?.url}/metrics`)).text();
    expect(metrics).to.match(/runload_runs_waiting\{reason="capacity"\} 2/);
    expect(metrics).to.match(/runload_backends\{state="drained",source="static"\} 1/);
    await cliJson(['backends', 'activate', c.url], env);
    for (const id of later) expect((await (api[1] as ApiClient).waitFor(id, ['succeeded'], 20_000))['status']).to.equal('succeeded');
    expect(runIdsOn(c)).to.include.members(later);
  });
});
