/**
 * Runs executing end to end: the server is a separate process, the fake ComfyUI servers live in
 * the test process so the test can fail, pause and kill them.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makePng, pngSize, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { waitFor } from '@runload/core/testing';
import { apiClient, type ApiClient } from './client.js';
import { cli, cliJson, REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';

const INPUT_PNG = makePng(16, 16, (x, y) => [x * 16, y * 16, 0, 255]);

async function world(fakes: FakeComfyUI[], limits: Record<string, unknown>, tier = 'ultra') {
  const data = tempDataDir();
  const limitsFile = path.join(data.dir, 'limits.json');
  writeFileSync(limitsFile, JSON.stringify(limits));
  const env = {
    RUNLOAD_DATA_DIR: data.dir,
    RUNLOAD_COMFYUI_URLS: fakes.map((f) => f.url).join(','),
    RUNLOAD_LIMITS_FILE: limitsFile,
    RUNLOAD_LEASE_SECONDS: '2',
    RUNLOAD_LOG_LEVEL: 'silent',
  };
  const account = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', 'e2e', '--tier', tier], env);
  const key = await cliJson<{ api_key: string }>(['keys', 'create', '--account', account.account_id], env);
  const app = await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env);
  const server = await startServerProcess(env);
  return { env, data, server, apiKey: key.api_key, api: apiClient(server.url, key.api_key), appVersionId: app.app_version_id };
}

describe('runs on ComfyUI, end to end', function () {
  this.timeout(120_000);

  describe('one backend', () => {
    let fake: FakeComfyUI;
    let w: Awaited<ReturnType<typeof world>>;
    let api: ApiClient;
    before(async () => {
      fake = await startFakeComfyUI({ executionMs: 200 });
      // The tests poll back to back with one key: the general limit is raised so they never meet it.
      w = await world([fake], { max_run_seconds: 2, general_per_minute: 100_000 });
      api = w.api;
    });
    after(async () => {
      expect(await w.server.stop('SIGTERM')).to.equal(0);
      await fake.close();
      w.data.remove();
    });

    const start = async (inputs: Record<string, unknown>) => {
      const res = await api.json<{ run_id: string }>('POST', `/api/v1/apps/${w.appVersionId}`, { inputs });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.run_id;
    };

    it('uploads an image, runs the app, polls to succeeded and downloads a valid PNG; GPU time is charged', async () => {
      const image = await api.upload(INPUT_PNG, 'input.png');
      const runId = await start({ '1:image': image, '2:blur_radius': 6 });
      const run = await api.waitFor(runId, ['succeeded', 'failed']);
      expect(run['status'], JSON.stringify(run['error'])).to.equal('succeeded');
      const outputs = run['outputs'] as { url: string; content_type: string; node_id: string }[];
      expect(outputs).to.have.length(1);
      expect(outputs[0]).to.include({ content_type: 'image/png', node_id: '4' });
      expect(pngSize(await api.bytes(outputs[0]?.url ?? ''))).to.not.equal(null);
      const metrics = run['metrics'] as { gpu_seconds: number; run_ms: number; queue_ms: number };
      expect(metrics.gpu_seconds).to.be.greaterThan(0.1);
      expect(metrics.run_ms).to.be.at.least(100);
      const account = await api.json<{ gpu_seconds_used: number }>('GET', '/api/v1/account');
      expect(account.body.gpu_seconds_used).to.be.closeTo(metrics.gpu_seconds, 1e-9);
      const prompt = fake.prompts.find((p) => p.extra_data['runload_run_id'] === runId);
      expect(fake.executedCount(prompt?.prompt_id ?? '')).to.equal(1);
    });

    it("refuses to publish a workflow with no output node, as the backend's /object_info tells, before any run of it fails", async () => {
      const file = path.join(w.data.dir, 'no-output.api.json');
      writeFileSync(file, JSON.stringify({ '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } }, '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } } }));
      const result = await cli(['apps', 'publish', '--name', 'No output', '--workflow', file], w.env);
      expect(result.code).to.not.equal(0);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.contain('no output node').and.to.contain('Prompt has no outputs');
      const listed = await cliJson<{ apps: { name: string }[] }>(['apps', 'list'], w.env);
      expect(listed.apps.map((a) => a.name)).to.not.include('No output');
    });

    it('shows progress moving through an image job without a sampler, and completes it when the run succeeds', async () => {
      const image = await api.upload(INPUT_PNG, 'input.png');
      fake.setExecutionMs(1200);
      const runId = await start({ '1:image': image, '2:blur_radius': 5 });
      const seen: number[] = [];
      const deadline = Date.now() + 20_000;
      let run: Record<string, unknown> = {};
      while (Date.now() < deadline) {
        run = (await api.json<Record<string, unknown>>('GET', `/api/v1/runs/${runId}`)).body;
        const progress = run['progress'] as { value: number; max: number } | null;
        if (run['status'] === 'running' && progress) {
          expect(progress.max, 'the four nodes of the app').to.equal(4);
          if (seen.at(-1) !== progress.value) seen.push(progress.value);
        }
        if (run['status'] !== 'queued' && run['status'] !== 'running') break;
        // Not synchronisation: the sampling interval of the progress a client would see while polling.
        await new Promise((r) => setTimeout(r, 100));
      }
      fake.setExecutionMs(200);
      expect(run['status']).to.equal('succeeded');
      expect(seen.length, `progress values seen while running: ${JSON.stringify(seen)}`).to.be.at.least(2);
      expect(seen, 'never backwards').to.deep.equal([...seen].sort((a, b) => a - b));
      expect(run['progress']).to.deep.equal({ value: 4, max: 4, node_id: null });
    });

    it('fails a run with EXECUTION_ERROR naming the node that raised', async () => {
      const image = await api.upload(INPUT_PNG, 'input.png');
      fake.failNextWith({ nodeId: '2', exceptionType: 'RuntimeError', message: 'kernel exploded' });
      const run = await api.waitFor(await start({ '1:image': image, '2:blur_radius': 7 }), ['succeeded', 'failed']);
      expect(run['status']).to.equal('failed');
      expect(run['error']).to.deep.include({ code: 'EXECUTION_ERROR', node_id: '2', node_type: 'ImageBlur', message: 'kernel exploded' });
    });

    it('cancels a run while it waits and while it runs', async () => {
      const image = await api.upload(INPUT_PNG, 'input.png');
      fake.setExecutionMs(1500);
      const running = await start({ '1:image': image, '2:blur_radius': 8 });
      await api.waitFor(running, ['running']);
      const waiting = await start({ '1:image': image, '2:blur_radius': 9 });
      const queued = await api.json('GET', `/api/v1/runs/${waiting}`);
      expect(queued.body['queue_position']).to.equal(0);
      expect((await api.json('POST', `/api/v1/runs/${waiting}/cancel`)).body['status']).to.equal('canceled');
      expect((await api.json('POST', `/api/v1/runs/${running}/cancel`)).body['status']).to.equal('canceling');
      expect((await api.waitFor(running, ['canceled', 'succeeded', 'failed']))['status']).to.equal('canceled');
      fake.setExecutionMs(200);
    });

    it('cancels a running run whose first cancel ComfyUI answers 500: sent again at the next sweep, the run ends canceled', async () => {
      const image = await api.upload(INPUT_PNG, 'input.png');
      fake.setExecutionMs(1500);
      const running = await start({ '1:image': image, '2:blur_radius': 8 });
      await api.waitFor(running, ['running']);
      fake.failRequests('POST /queue', 1);
      const interrupts = fake.requestCounts.get('POST /interrupt') ?? 0;
      expect((await api.json('POST', `/api/v1/runs/${running}/cancel`)).body['status']).to.equal('canceling');
      expect((await api.waitFor(running, ['canceled', 'succeeded', 'failed']))['status']).to.equal('canceled');
      expect(fake.requestCounts.get('POST /interrupt'), 'interrupted once the cancel was sent again').to.equal(interrupts + 1);
      fake.setExecutionMs(200);
    });

    it('interrupts a run past its time limit again when ComfyUI answers the first interrupt 500, and fails it RUN_TIMEOUT', async () => {
      const image = await api.upload(INPUT_PNG, 'input.png');
      fake.setExecutionMs(8000);
      fake.failRequests('POST /interrupt', 1);
      const run = await api.waitFor(await start({ '1:image': image, '2:blur_radius': 11 }), ['succeeded', 'failed', 'canceled'], 30_000);
      fake.setExecutionMs(200);
      expect(run['status']).to.equal('failed');
      expect((run['error'] as { code: string }).code).to.equal('RUN_TIMEOUT');
    });

    it('charges a run whose backend executed it but whose outputs cannot be read, and fails it OUTPUTS_UNREADABLE', async () => {
      const image = await api.upload(INPUT_PNG, 'input.png');
      const before = (await api.json<{ gpu_seconds_used: number }>('GET', '/api/v1/account')).body.gpu_seconds_used;
      // A 20,000-character file name makes the backend's /view URL too long for it to answer (431).
      const runId = await start({ '1:image': image, '4:filename_prefix': 'p'.repeat(20_000) });
      const run = await api.waitFor(runId, ['succeeded', 'failed'], 30_000);
      expect(run['status']).to.equal('failed');
      const error = run['error'] as { code: string; message: string };
      expect(error.code).to.equal('OUTPUTS_UNREADABLE');
      expect(error.message.length, 'the message does not carry the whole input').to.be.below(1000);
      const metrics = run['metrics'] as { gpu_seconds: number };
      expect(metrics.gpu_seconds).to.be.greaterThan(0.1);
      const after = (await api.json<{ gpu_seconds_used: number }>('GET', '/api/v1/account')).body.gpu_seconds_used;
      expect(after - before).to.be.closeTo(metrics.gpu_seconds, 0.002);
    });

    it('fails a run past its time limit with RUN_TIMEOUT', async () => {
      const image = await api.upload(INPUT_PNG, 'input.png');
      fake.setExecutionMs(8000);
      const run = await api.waitFor(await start({ '1:image': image, '2:blur_radius': 10 }), ['succeeded', 'failed', 'canceled'], 30_000);
      fake.setExecutionMs(200);
      expect(run['status']).to.equal('failed');
      expect((run['error'] as { code: string }).code).to.equal('RUN_TIMEOUT');
    });
  });

  describe('stopping with an event stream open', () => {
    it('ends the stream and exits at once on SIGTERM, rather than waiting out the grace for it', async () => {
      const fake = await startFakeComfyUI({ executionMs: 60_000 });
      const w = await world([fake], { general_per_minute: 100_000 });
      try {
        const image = await w.api.upload(INPUT_PNG, 'input.png');
        const created = await w.api.json<{ run_id: string }>('POST', `/api/v1/apps/${w.appVersionId}`, { inputs: { '1:image': image } });
        const events = await fetch(`${w.server.url}/api/v1/runs/${created.body.run_id}/events`, { headers: { authorization: `Bearer ${w.apiKey}` } });
        const reader = (events.body as ReadableStream<Uint8Array>).getReader();
        expect(new TextDecoder().decode((await reader.read()).value)).to.include('event: run');
        let streamEnded = false;
        const drained = (async () => {
          for (let r = await reader.read().catch(() => ({ done: true })); !r.done; r = await reader.read().catch(() => ({ done: true })));
          streamEnded = true;
        })();
        const asked = Date.now();
        expect(await w.server.stop('SIGTERM'), 'exit code').to.equal(0);
        // The HTTP server's grace for requests in flight is 10 s: a stream left open would hold it that long.
        expect(Date.now() - asked, 'ms from SIGTERM to exit').to.be.below(5000);
        await drained;
        expect(streamEnded).to.equal(true);
      } finally {
        await fake.close();
        w.data.remove();
      }
    });
  });

  describe('GPU quota', () => {
    let fake: FakeComfyUI;
    let w: Awaited<ReturnType<typeof world>>;
    before(async () => {
      fake = await startFakeComfyUI({ executionMs: 400 });
      w = await world([fake], { tiers: { ultra: { gpu_seconds_per_month: 0.3 } } });
    });
    after(async () => {
      await w.server.stop('SIGTERM');
      await fake.close();
      w.data.remove();
    });

    it('charges a run its measured time and refuses the next one once the quota is spent', async () => {
      const image = await w.api.upload(INPUT_PNG, 'input.png');
      const first = await w.api.json<{ run_id: string }>('POST', `/api/v1/apps/${w.appVersionId}`, { inputs: { '1:image': image } });
      expect(first.status).to.equal(201);
      const run = await w.api.waitFor(first.body.run_id, ['succeeded', 'failed']);
      const charged = (run['metrics'] as { gpu_seconds: number }).gpu_seconds;
      expect(charged).to.be.greaterThan(0.3);
      const account = await w.api.json<{ gpu_seconds_used: number; gpu_seconds_quota: number }>('GET', '/api/v1/account');
      expect(account.body).to.include({ gpu_seconds_used: charged, gpu_seconds_quota: 0.3 });
      const refused = await w.api.json<{ error: { code: string } }>('POST', `/api/v1/apps/${w.appVersionId}`, { inputs: { '1:image': image } });
      expect(refused.status).to.equal(429);
      expect(refused.body.error.code).to.equal('GPU_QUOTA_EXCEEDED');
      expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(refused.headers.get('x-gpu-quota-remaining')).to.equal('0');
    });
  });

  describe('two backends', () => {
    let a: FakeComfyUI;
    let b: FakeComfyUI;
    let w: Awaited<ReturnType<typeof world>>;
    before(async () => {
      a = await startFakeComfyUI({ executionMs: 50 });
      b = await startFakeComfyUI({ executionMs: 50 });
      // Failover off: a run lost after it started fails (the pool's own tests fail it over).
      w = await world([a, b], { max_attempts: 1 });
    });
    after(async () => {
      await w.server.stop('SIGTERM');
      await a.close();
      await b.close();
      w.data.remove();
    });

    it('share 20 runs, each executed exactly once', async () => {
      const image = await w.api.upload(INPUT_PNG, 'input.png');
      const ids: string[] = [];
      for (let i = 0; i < 20; i += 1) {
        const res = await w.api.json<{ run_id: string }>('POST', `/api/v1/apps/${w.appVersionId}`, { inputs: { '1:image': image, '2:blur_radius': (i % 30) + 1 } });
        ids.push(res.body.run_id);
      }
      for (const id of ids) expect((await w.api.waitFor(id, ['succeeded', 'failed']))['status']).to.equal('succeeded');
      const all = [...a.prompts, ...b.prompts];
      expect(all).to.have.length(20);
      expect(new Set(all.map((p) => p.extra_data['runload_run_id'])).size).to.equal(20);
      expect(a.prompts.length).to.be.greaterThan(0);
      expect(b.prompts.length).to.be.greaterThan(0);
      for (const p of all) expect((a.prompts.includes(p) ? a : b).executedCount(p.prompt_id)).to.equal(1);
    });

    it('with max_attempts 1, fails with BACKEND_LOST a run whose backend dies mid-run, and answers 503 when every backend is down', async () => {
      const image = await w.api.upload(INPUT_PNG, 'input.png');
      a.setExecutionMs(5000);
      b.setExecutionMs(5000);
      const res = await w.api.json<{ run_id: string }>('POST', `/api/v1/apps/${w.appVersionId}`, { inputs: { '1:image': image, '2:blur_radius': 31 } });
      await w.api.waitFor(res.body.run_id, ['running']);
      const holder = a.prompts.some((p) => p.extra_data['runload_run_id'] === res.body.run_id) ? a : b;
      await holder.crash();
      const lost = await w.api.waitFor(res.body.run_id, ['failed', 'succeeded'], 30_000);
      expect((lost['error'] as { code: string }).code).to.equal('BACKEND_LOST');
      expect((lost['metrics'] as { gpu_seconds: number | null }).gpu_seconds).to.equal(null);
      expect(lost['attempts']).to.equal(1);
      await (holder === a ? b : a).crash();
      // The server learns of the second crash at its next probe: /healthz says so.
      await waitFor(async () => ((await (await fetch(`${w.server.url}/healthz`)).json()) as { status: string }).status === 'degraded', 'health to report no reachable backend', { timeoutMs: 15_000, intervalMs: 100 });
      const down = await w.api.json('POST', `/api/v1/apps/${w.appVersionId}`, { inputs: {} });
      expect(down.status).to.equal(503);
      expect((down.body['error'] as { code: string }).code).to.equal('SERVICE_UNAVAILABLE');
    });
  });
});
