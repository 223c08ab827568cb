/**
 * `@runload/client` against a real server process and the fake ComfyUI: upload, run, wait,
 * download, a 422 as a typed error and a 429 retried. Every response is also checked against
 * the OpenAPI document.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { conformingFetch, createResponseChecker } from '@runload/api-schema/testing';
import { RunloadClient, RunloadError } from '@runload/client';
import { uploadFile } from '@runload/client/node';
import { makePng, pngSize, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { cliJson, createAccountWithKey, REPO_ROOT, type ServerProcess, startServerProcess, tempDataDir } from './processes.js';

describe('@runload/client end to end', function () {
  this.timeout(180_000);
  let fake: FakeComfyUI;
  let server: ServerProcess;
  let data: ReturnType<typeof tempDataDir>;
  let apiKey: string;
  let appVersionId: string;
  const waits: number[] = [];
  const responses: Array<{ method: string; url: string; status: number }> = [];

  before(async () => {
    fake = await startFakeComfyUI({ executionMs: 100 });
    data = tempDataDir();
    const limitsFile = path.join(data.dir, 'limits.json');
    writeFileSync(limitsFile, JSON.stringify({ tiers: { starter: { runs_per_minute: 2, runs_per_hour: 100, gpu_seconds_per_month: 3600 } } }));
    const env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LIMITS_FILE: limitsFile, RUNLOAD_LOG_LEVEL: 'silent' };
    apiKey = await createAccountWithKey(env, 'client', 'starter');
    appVersionId = (
      await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env)
    ).app_version_id;
    server = await startServerProcess(env);
  });
  after(async () => {
    await server?.stop('SIGTERM');
    await fake?.close();
    data?.remove();
  });

  function client(): RunloadClient {
    const checker = createResponseChecker();
    const checked = conformingFetch(checker, async (input, init) => {
      const response = await fetch(input, init);
      responses.push({ method: init?.method ?? 'GET', url: input, status: response.status });
      return response;
    });
    return new RunloadClient({
      baseUrl: server.url,
      apiKey,
      fetch: ((input: string | URL | Request, init?: RequestInit) => checked(String(input), init)) as typeof fetch,
      // Real waits, recorded so the test can see the retry honoured Retry-After.
      sleep: (ms) => {
        waits.push(ms);
        return new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
  }

  it('uploads a file, runs the app, waits for it and downloads the output', async () => {
    const api = client();
    const apps = await api.listApps();
    expect(apps.apps.map((a) => a.app_version_id)).to.include(appVersionId);
    const app = await api.describeApp(appVersionId);
    expect(app.inputs.map((i) => i.key)).to.include('1:image');

    const file = path.join(data.dir, 'input.png');
    writeFileSync(file, makePng(16, 16, (x, y) => [x * 16, y * 16, 0, 255]));
    const asset = await uploadFile(api, file);
    expect(asset).to.include({ filename: 'input.png', content_type: 'image/png' });

    const created = await api.createRun(appVersionId, { inputs: { '1:image': asset.asset_id } });
    expect(created.status).to.equal('queued');
    const statuses: string[] = [];
    const run = await api.waitForRun(created.run_id, { pollIntervalMs: 100, onUpdate: (r) => statuses.push(r.status) });
    expect(run.status, JSON.stringify(run.error)).to.equal('succeeded');
    expect(statuses.at(-1)).to.equal('succeeded');
    const output = run.outputs[0];
    expect(output?.content_type).to.equal('image/png');
    const bytes = new Uint8Array(await (await api.downloadAsset(output?.asset_id ?? '')).arrayBuffer());
    expect(pngSize(Buffer.from(bytes))).to.not.equal(null);

    expect((await api.listRuns({ limit: 5 })).runs.map((r) => r.run_id)).to.include(created.run_id);
    expect((await api.cancelRun(created.run_id)).status).to.equal('succeeded');
    expect((await api.getAccount()).gpu_seconds_used).to.be.greaterThan(0);
  });

  it('throws a 422 as a typed error naming the bad input', async () => {
    const error = await client()
      .createRun(appVersionId, { inputs: { '2:blur_radius': 'not a number', '9:nope': 1 } })
      .then(() => null, (e: unknown) => e);
    expect(RunloadError.is(error)).to.equal(true);
    const e = error as RunloadError;
    expect(e).to.include({ code: 'INVALID_INPUT', status: 422 });
    expect((e.details as Array<{ key: string }>).map((d) => d.key)).to.have.members(['2:blur_radius', '9:nope']);
  });

  it('retries a 429 from the run limit after Retry-After, and the run is then created', async () => {
    const api = client();
    const image = (await api.uploadAsset(new Blob([makePng(8, 8, () => [0, 0, 255, 255])]), 'b.png')).asset_id;
    waits.length = 0;
    responses.length = 0;
    // Two runs a minute for this tier: the first run of the first test may share this minute.
    const created: string[] = [];
    for (let i = 0; i < 3; i += 1) created.push((await api.createRun(appVersionId, { inputs: { '1:image': image } })).run_id);
    const refused = responses.filter((r) => r.status === 429);
    expect(refused.length, 'the run limit answered 429 at least once').to.be.at.least(1);
    expect(waits.length).to.equal(refused.length);
    expect(waits.every((ms) => ms >= 1000 && ms <= 60_000), `waits ${waits.join(', ')}`).to.equal(true);
    expect(new Set(created).size).to.equal(3);
  });
});
