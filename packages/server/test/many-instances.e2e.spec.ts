/**
 * Three server processes sharing PostgreSQL, Redis and one blob directory, with two fake
 * ComfyUI backends: limits hold across instances, every run executes exactly once, and the runs
 * of a killed instance are finished by the others.
 */
import { expect } from 'chai';
import path from 'node:path';
import { makePng, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { apiClient } from './client.js';
import { cliJson, createAccountWithKey, REPO_ROOT, type ServerProcess, startServerProcess, tempDataDir } from './processes.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';
import { waitFor } from '@runload/core/testing';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if ((!pgUrl || !redisUrl) && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL and RUNLOAD_TEST_REDIS_URL');

(pgUrl && redisUrl ? describe : describe.skip)('many instances on PostgreSQL and Redis', function () {
  this.timeout(180_000);
  const data = tempDataDir();
  let scratch: ScratchDatabase | undefined;
  let fakes: FakeComfyUI[] = [];
  let servers: ServerProcess[] = [];
  let env: Record<string, string>;
  let starterKey: string;
  let ultraKey: string;
  let runnerKey: string;
  let appVersionId: string;

  before(async () => {
    scratch = await createScratchDatabase(pgUrl ?? '', 'e2e');
    const url = scratch.url;
    fakes = [await startFakeComfyUI({ executionMs: 40 }), await startFakeComfyUI({ executionMs: 40 })];
    env = {
      RUNLOAD_DATA_DIR: data.dir,
      RUNLOAD_DATABASE_URL: url,
      RUNLOAD_REDIS_URL: `${redisUrl}`,
      RUNLOAD_COMFYUI_URLS: fakes.map((f) => f.url).join(','),
      RUNLOAD_LEASE_SECONDS: '5',
      RUNLOAD_LOG_LEVEL: 'silent',
    };
    await cliJson(['migrate'], env);
    starterKey = await createAccountWithKey(env, 's', 'starter');
    ultraKey = await createAccountWithKey(env, 'u', 'ultra');
    runnerKey = await createAccountWithKey(env, 'r', 'ultra');
    appVersionId = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env)).app_version_id;
    servers = await Promise.all([0, 1, 2].map(() => startServerProcess(env)));
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGTERM')));
    for (const f of fakes) await f.close();
    await scratch?.drop();
    data.remove();
  });

  it('admits exactly 10 Starter runs per minute window out of 300 concurrent requests spread over three instances', async () => {
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        fetch(`${servers[i % 3]?.url}/api/v1/apps/${appVersionId}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${starterKey}`, 'content-type': 'application/json' },
          body: '{"inputs":{}}',
        }),
      ),
    );
    const admittedByWindow = new Map<string, number>();
    for (const r of answers) {
      if (r.status === 201) {
        const reset = r.headers.get('x-ratelimit-minute-reset') ?? '';
        admittedByWindow.set(reset, (admittedByWindow.get(reset) ?? 0) + 1);
      } else {
        expect([429]).to.include(r.status);
      }
    }
    for (const count of admittedByWindow.values()) expect(count).to.equal(10);
  });

  it('holds the general limit of 120 a minute across the three instances', async () => {
    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) => fetch(`${servers[i % 3]?.url}/api/v1/account`, { headers: { authorization: `Bearer ${ultraKey}` } })),
    );
    const byWindow = new Map<string, number>();
    for (const r of answers) {
      if (r.status === 200) {
        const reset = r.headers.get('x-ratelimit-minute-reset') ?? '';
        byWindow.set(reset, (byWindow.get(reset) ?? 0) + 1);
      }
    }
    const total = [...byWindow.values()].reduce((a, b) => a + b, 0);
    // All 150 land in at most two minute windows; none may hold more than 120.
    for (const count of byWindow.values()) expect(count).to.be.at.most(120);
    expect(total).to.be.at.least(120);
  });

  it('runs 50 runs over two backends, each exactly once, and finishes the runs of an instance killed mid-run', async () => {
    const api = servers.map((s) => apiClient(s.url, runnerKey));
    const image = await (api[0] as ReturnType<typeof apiClient>).upload(makePng(4, 4, () => [1, 1, 1, 255]), 'in.png');
    for (const f of fakes) f.setExecutionMs(150);
    const ids: string[] = [];
    for (let i = 0; i < 50; i += 1) {
      const res = await (api[i % 3] as ReturnType<typeof apiClient>).json<{ run_id: string }>('POST', `/api/v1/apps/${appVersionId}`, {
        inputs: { '1:image': image, '2:blur_radius': (i % 31) + 1, '2:sigma': 1 + i / 100 },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids.push(res.body.run_id);
    }
    // Killed mid-flight: once the backends have been handed a few of the runs, most still queued.
    await waitFor(() => fakes.reduce((n, f) => n + f.prompts.length, 0) >= 6, 'the backends to receive their first prompts', { timeoutMs: 30_000 });
    await servers[2]?.stop('SIGKILL');
    servers = servers.slice(0, 2);
    // One list request a second sees every run, well inside the general limit.
    type Listed = { run_id: string; status: string; error: unknown }[];
    let runs: Listed = [];
    await waitFor(
      async () => {
        runs = (await (api[0] as ReturnType<typeof apiClient>).json<{ runs: Listed }>('GET', '/api/v1/runs?limit=100')).body.runs;
        return runs.length === 50 && runs.every((r) => ['succeeded', 'failed', 'canceled', 'expired'].includes(r.status));
      },
      'the 50 runs to be listed, each ended',
      { timeoutMs: 60_000, intervalMs: 1000 },
    ).catch(() => undefined); // the assertions below show which runs did not end
    expect(runs.filter((r) => r.status !== 'succeeded').map((r) => [r.run_id, r.status, r.error])).to.deep.equal([]);
    expect(runs).to.have.length(50);
    const prompts = fakes.flatMap((f) => f.prompts.filter((p) => ids.includes(String(p.extra_data['runload_run_id']))).map((p) => ({ f, p })));
    const dup = prompts.filter(({ p }) => prompts.filter((q) => q.p.extra_data['runload_run_id'] === p.extra_data['runload_run_id']).length > 1);
    if (dup.length > 0) process.stderr.write(`DUPLICATES ${JSON.stringify(dup.map(({ f, p }) => [f.url, p.prompt_id, p.number]))}\n${servers.map((s) => s.stderr()).join('\n')}\n`);
    expect(prompts).to.have.length(50);
    for (const { f, p } of prompts) expect(f.executedCount(p.prompt_id)).to.equal(1);
  });
});
