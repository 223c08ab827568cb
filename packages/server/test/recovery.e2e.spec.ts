/**
 * Recovery: the server is killed with SIGKILL at each named point of a run's life and started
 * again; every run ends in the right state with its outputs, none is executed twice, none is lost.
 * `scripts/recovery-loop.sh` runs this file ten times in a row.
 */
import { expect } from 'chai';
import path from 'node:path';
import { waitFor } from '@runload/core/testing';
import { makePng, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { openDatabase } from '@runload/storage-adapter';
import { apiClient, type ApiClient } from './client.js';
import { expectSucceededOnce } from './run-checks.js';
import { cliJson, createAccountWithKey, REPO_ROOT, type ServerProcess, startServerProcess, tempDataDir } from './processes.js';

const INPUT_PNG = makePng(8, 8, () => [10, 20, 30, 255]);

const until = (probe: () => boolean, what: string, timeoutMs = 10_000) => waitFor(probe, what, { timeoutMs });

describe('recovery after SIGKILL', function () {
  this.timeout(180_000);
  const data = tempDataDir();
  let fake: FakeComfyUI;
  let env: Record<string, string>;
  let server: ServerProcess;
  let api: ApiClient;
  let appVersionId: string;
  let apiKey: string;
  let image: string;
  let blur = 0;

  before(async () => {
    fake = await startFakeComfyUI({ executionMs: 100 });
    env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LOG_LEVEL: 'silent', RUNLOAD_LEASE_SECONDS: '3' };
    apiKey = await createAccountWithKey(env, 'r', 'ultra');
    appVersionId = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env)).app_version_id;
    server = await startServerProcess(env);
    api = apiClient(server.url, apiKey);
    image = await api.upload(INPUT_PNG, 'in.png');
  });

  after(async () => {
    await server?.stop('SIGTERM');
    await fake.close();
    data.remove();
  });

  async function startRun(): Promise<string> {
    blur += 1;
    const res = await api.json<{ run_id: string }>('POST', `/api/v1/apps/${appVersionId}`, { inputs: { '1:image': image, '2:blur_radius': blur } });
    expect(res.status).to.equal(201);
    return res.body.run_id;
  }

  async function killAndRestart(): Promise<void> {
    await server.stop('SIGKILL');
    server = await startServerProcess(env);
    api = apiClient(server.url, apiKey);
  }

  async function expectDoneOnce(runId: string): Promise<void> {
    await expectSucceededOnce(api, fake, runId);
  }

  it('after a run is claimed and before its prompt is sent', async () => {
    const uploads = fake.requestCounts.get('POST /upload/image') ?? 0;
    fake.setDelays({ upload: 2000 });
    const runId = await startRun();
    await until(() => (fake.requestCounts.get('POST /upload/image') ?? 0) > uploads, 'the media upload to begin');
    await killAndRestart();
    fake.setDelays({ upload: 0 });
    await expectDoneOnce(runId);
  });

  it('after the prompt is sent, while it waits in the backend queue', async () => {
    fake.pause();
    const runId = await startRun();
    await until(() => fake.prompts.some((p) => p.extra_data['runload_run_id'] === runId), 'the prompt to reach the backend');
    await killAndRestart();
    fake.resume();
    await expectDoneOnce(runId);
  });

  it('while the run executes', async () => {
    fake.setExecutionMs(1500);
    const runId = await startRun();
    await api.waitFor(runId, ['running']);
    await killAndRestart();
    fake.setExecutionMs(100);
    await expectDoneOnce(runId);
  });

  it('after the backend finished and while the outputs are being stored', async () => {
    const views = fake.requestCounts.get('GET /view') ?? 0;
    fake.setDelays({ view: 2000 });
    const runId = await startRun();
    await until(() => (fake.requestCounts.get('GET /view') ?? 0) > views, 'the output download to begin');
    await killAndRestart();
    fake.setDelays({ view: 0 });
    await expectDoneOnce(runId);
  });

  it('while a run claimed ahead waits for the run on its backend to end', async () => {
    // The instance learns how long this app's runs hold the backend from one that ran its course
    // here (300 ms); the next runs take longer, so the one claimed ahead waits a while.
    fake.setExecutionMs(300);
    await expectDoneOnce(await startRun());
    fake.setExecutionMs(3000);
    const first = await startRun();
    await until(() => fake.prompts.some((p) => p.extra_data['runload_run_id'] === first), 'the first run to reach the backend');
    const second = await startRun();
    const db = openDatabase({ url: null, dataDir: data.dir });
    try {
      await waitFor(async () => (await db('runs').where({ id: second, waits_for_room: true }).first()) !== undefined, 'the second run to be claimed ahead, waiting', { timeoutMs: 10_000 });
    } finally {
      await db.destroy();
    }
    await killAndRestart();
    fake.setExecutionMs(100);
    await expectDoneOnce(first);
    await expectDoneOnce(second);
  });

  it('with several runs queued, running and finishing at once', async () => {
    fake.setExecutionMs(300);
    const ids = await Promise.all(Array.from({ length: 6 }, () => startRun()));
    // Killed with one run finished on the backend and the others queued behind or running.
    await until(() => ids.some((id) => fake.finishedAt.has(id)), 'a first run to finish on the backend');
    await killAndRestart();
    for (const id of ids) await expectDoneOnce(id);
  });
});
