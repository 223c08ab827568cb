/**
 * A backend killed at each point of a run's life: a runload server process and a fake ComfyUI
 * process holding the run, SIGKILLed (a) with the prompt queued there, (b) executing, (c) done
 * there, as runload reads its history (a server older than v0.3.0, whose socket does not tell the
 * outcome whole), (d) while runload downloads its output. Each time the run
 * ends `succeeded` on the other backend, stored once and charged once.
 * `scripts/backend-kill-loop.sh` runs this file ten times in a row.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pngSize, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { waitFor } from '@runload/core/testing';
import { apiClient, type ApiClient } from './client.js';
import { cliJson, createAccountWithKey, REPO_ROOT, type ServerProcess, startServerProcess, tempDataDir } from './processes.js';

const TEXT = path.join(REPO_ROOT, 'examples/workflows/text-to-image.api.json');

/** A fake ComfyUI process that prints each request it receives, so a test can act on it. */
interface Victim {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves once a request whose route starts with `prefix` has arrived. */
  received(prefix: string): Promise<void>;
}

async function startVictim(options: readonly string[]): Promise<Victim> {
  const child = spawn(
    process.execPath,
    ['--conditions=@runload/source', '--import', 'tsx', path.join(REPO_ROOT, 'packages/fake-comfyui/src/main.ts'), '--port', '0', '--log-requests', ...options],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(out)?.[1], 'the fake to listen', { timeoutMs: 30_000 });
  const received = async (prefix: string) => {
    await waitFor(() => out.split('\n').some((line) => line.startsWith(`request ${prefix}`)), `a request ${prefix} on the killed backend`, { timeoutMs: 30_000 });
  };
  return { url, child, received };
}

type Run = { status: string; attempts: number; outputs: { asset_id: string; url: string }[]; metrics: { gpu_seconds: number | null } };

describe('a backend killed at each point of a run\'s life', function () {
  this.timeout(300_000);
  const data = tempDataDir();
  let survivor: FakeComfyUI;
  let server: ServerProcess;
  let env: Record<string, string>;
  let api: ApiClient;
  let app: string;
  let seed = 0;
  const victims: Victim[] = [];

  before(async () => {
    survivor = await startFakeComfyUI({ executionMs: 200 });
    env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: '', RUNLOAD_LOG_LEVEL: 'silent', RUNLOAD_LEASE_SECONDS: '3' };
    const key = await createAccountWithKey(env, 'k', 'ultra');
    // The survivor is in the pool, but drained until the victim holds the run.
    await cliJson(['backends', 'add', survivor.url], env);
    app = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'T2I', '--workflow', TEXT], env)).app_version_id;
    await cliJson(['backends', 'drain', survivor.url], env);
    server = await startServerProcess(env);
    api = apiClient(server.url, key);
  });

  after(async () => {
    await server?.stop('SIGTERM');
    for (const v of victims) if (v.child.exitCode === null) v.child.kill('SIGKILL');
    await survivor.close();
    data.remove();
  });

  const usedSeconds = async () => (await api.json<{ gpu_seconds_used: number }>('GET', '/api/v1/account')).body.gpu_seconds_used;
  const outputAssets = async () => (await api.json<{ assets: unknown[] }>('GET', '/api/v1/assets?origin=output&limit=100')).body.assets.length;
  const onSurvivor = (runId: string) => survivor.prompts.filter((p) => p.extra_data['runload_run_id'] === runId).length;

  /**
   * Puts a new victim backend (started with `options`) in the pool, creates a run on it, waits for
   * `landed`, kills the victim with SIGKILL, lets the survivor take runs, and checks what the user sees.
   */
  async function killAt(options: readonly string[], landed: (victim: Victim, runId: string) => Promise<void>, attempts: number): Promise<void> {
    const victim = await startVictim(options);
    victims.push(victim);
    await cliJson(['backends', 'add', victim.url], env);
    const usedBefore = await usedSeconds();
    const assetsBefore = await outputAssets();
    seed += 1;
    // The server follows the pool's rows every 2 s: it takes the run once it knows the victim.
    const runId = await waitFor(
      async () => {
        const res = await api.json<{ run_id: string }>('POST', `/api/v1/apps/${app}`, { inputs: { '3:seed': seed } });
        return res.status === 201 && res.body.run_id;
      },
      'the server to know the new backend',
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    await victim.received('POST /prompt');
    await landed(victim, runId);
    victim.child.kill('SIGKILL');
    await cliJson(['backends', 'activate', survivor.url], env);

    const run = (await api.waitFor(runId, ['succeeded', 'failed', 'canceled', 'expired'], 120_000)) as unknown as Run;
    expect([run.status, run.attempts], JSON.stringify(run)).to.deep.equal(['succeeded', attempts]);
    expect(onSurvivor(runId), 'the survivor ran it once').to.equal(1);
    expect(run.outputs).to.have.length(1);
    expect(pngSize(await api.bytes(run.outputs[0]?.url ?? '')), 'its output downloads as a PNG').to.not.equal(null);
    expect(await outputAssets(), 'its output is stored once').to.equal(assetsBefore + 1);
    expect(run.metrics.gpu_seconds).to.be.a('number').and.above(0);
    expect(await usedSeconds(), 'charged once, for the attempt that finished').to.be.closeTo(usedBefore + (run.metrics.gpu_seconds ?? 0), 0.001);

    await cliJson(['backends', 'remove', victim.url, '--force'], env);
    await cliJson(['backends', 'drain', survivor.url], env);
  }

  it('(a) queued on the backend, not started: runs on the other one, attempts 1', async () => {
    await killAt(['--paused'], async () => undefined, 1);
  });

  it('(b) executing: fails over, attempts 2', async () => {
    await killAt(['--execution-ms', '600000'], async (_victim, runId) => void (await api.waitFor(runId, ['running'], 20_000)), 2);
  });

  // A server whose socket does not tell a success whole (older than v0.3.0): its history is read.
  it('(c) finished there, while runload reads its history (its output may be downloading already): fails over, attempts 2', async () => {
    await killAt(['--version', 'legacy', '--execution-ms', '200', '--view-delay-ms', '600000'], (victim) => victim.received('GET /history/'), 2);
  });

  it('(d) while its output is being downloaded: fails over, attempts 2', async () => {
    await killAt(['--execution-ms', '200', '--view-delay-ms', '600000'], (victim) => victim.received('GET /view'), 2);
  });
});
