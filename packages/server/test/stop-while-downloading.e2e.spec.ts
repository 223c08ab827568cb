/**
 * A stop while an output drips in: the backend sends the file one byte every 5 s, so the transfer
 * is never idle long enough to fail and only its 10-minute cap would end it. SIGTERM must still
 * stop the server within its bound (no request in flight: well under the 10 s given to requests),
 * keep nothing of the download, and leave the run to the next start, which stores its outcome once,
 * charged once.
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from '@runload/core/testing';
import { makePng, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { apiClient } from './client.js';
import { expectSucceededOnce } from './run-checks.js';
import { cliJson, createAccountWithKey, REPO_ROOT, type ServerProcess, startServerProcess, tempDataDir } from './processes.js';

/** What a stop may take with no request in flight (requests in flight get up to 10 s more). */
const STOP_BOUND_MS = 10_000;

describe('SIGTERM while an output drips in', function () {
  this.timeout(120_000);
  const data = tempDataDir();
  let fake: FakeComfyUI;
  let server: ServerProcess | null = null;

  before(async () => {
    fake = await startFakeComfyUI({ executionMs: 100 });
  });

  after(async () => {
    await server?.stop('SIGKILL');
    await fake.close();
    data.remove();
  });

  it('stops within its bound, keeps nothing of the download, and the next start stores the run once', async () => {
    const env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LOG_LEVEL: 'silent', RUNLOAD_LEASE_SECONDS: '3' };
    const apiKey = await createAccountWithKey(env, 'drip', 'ultra');
    const app = await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env);
    server = await startServerProcess(env);
    let api = apiClient(server.url, apiKey);
    const image = await api.upload(makePng(8, 8, () => [10, 20, 30, 255]), 'in.png');

    fake.setViewDrip(5000);
    const views = fake.requestCounts.get('GET /view') ?? 0;
    const created = await api.json<{ run_id: string }>('POST', `/api/v1/apps/${app.app_version_id}`, { inputs: { '1:image': image, '2:blur_radius': 2 } });
    expect(created.status).to.equal(201);
    const runId = created.body.run_id;
    await waitFor(() => (fake.requestCounts.get('GET /view') ?? 0) > views, 'the output download to begin', { timeoutMs: 30_000 });

    // The stop is raced against its bound: past it, the test fails saying so (and kills the server).
    let deadline: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      server.stop('SIGTERM'),
      new Promise<string>((resolve) => (deadline = setTimeout(() => resolve(`still running ${STOP_BOUND_MS} ms after SIGTERM`), STOP_BOUND_MS))),
    ]);
    clearTimeout(deadline);
    expect(outcome, server.stderr()).to.equal(0);
    server = null;
    // Nothing half-written: no staging file left in the blob store.
    const staging = path.join(data.dir, 'blobs', '.staging');
    expect(readdirSync(staging, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name), 'staging files').to.deep.equal([]);

    // The backend serves at full speed again; the next start finds the run finished there and stores it.
    fake.setViewDrip(0);
    server = await startServerProcess(env);
    api = apiClient(server.url, apiKey);
    const run = await expectSucceededOnce(api, fake, runId);
    // Charged once: the account's use is this run's GPU time, not twice it.
    const gpuSeconds = (run['metrics'] as { gpu_seconds: number }).gpu_seconds;
    const overview = await api.json<{ gpu_seconds_used: number }>('GET', '/api/v1/account');
    expect(overview.body.gpu_seconds_used).to.be.closeTo(gpuSeconds, 0.002);
    // The account holds exactly the input and the one output (no copy from the aborted download).
    const assets = await api.json<{ assets: unknown[] }>('GET', '/api/v1/assets');
    expect(assets.body.assets, 'the input and the one output').to.have.length(2);
  });
});
