/**
 * The ComfyUI client when things go wrong or fast, on every version the fake imitates: every
 * socket message it follows, a socket that drops or goes silent mid-run, a backend that dies
 * before or after a run starts, cancel on a server shared with other clients, and what placement sees of a backend.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { ExecutionEvent, Preview, ExecutionJob } from '@runload/core';
import { makePng, startFakeComfyUI, type FakeComfyUI, type FakeVersion } from '@runload/fake-comfyui';
import { waitFor } from '@runload/core/testing';
import { ComfyUiExecutor } from '@runload/gpu-adapter';
import { TcpProxy } from './tcp-proxy.js';

const TEXT_TO_IMAGE = JSON.parse(readFileSync(new URL('../../../examples/workflows/text-to-image.api.json', import.meta.url), 'utf8')) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
const BLUR = {
  '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 1, sigma: 1 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'faults' } },
};
const PNG = makePng(2, 2, () => [10, 20, 30, 255]);
let counter = 0;

function nextRunId(): string {
  counter += 1;
  return `0000000f-0000-4000-8000-${String(counter).padStart(12, '0')}`;
}

/** A text-to-image job; each gets its own seed so no run is served from the server's cache. */
function textToImage(): ExecutionJob {
  return { runId: nextRunId(), workflow: TEXT_TO_IMAGE, inputs: { '3:seed': counter }, media: {} };
}

function blur(): ExecutionJob {
  return {
    runId: nextRunId(),
    workflow: BLUR,
    inputs: { '1:image': 'asset', '2:blur_radius': 1 + (counter % 5) },
    media: { '1:image': { assetId: `aaaaaaaa-0000-4000-8000-${String(counter).padStart(12, '0')}`, filename: 'x.png', contentType: 'image/png', open: async () => (async function* () { yield PNG; })() } },
  };
}

function follow(executor: ComfyUiExecutor, backend: string, runId: string) {
  const events: ExecutionEvent[] = [];
  /** Previews are kept apart: how many come depends on the fake's timing. */
  const previews: Preview[] = [];
  let resolve: (e: ExecutionEvent) => void = () => undefined;
  const end = new Promise<ExecutionEvent>((r) => (resolve = r));
  executor.follow(backend, runId, (e) => {
    if (e.type === 'preview') return void previews.push(e.preview);
    events.push(e);
    if (e.type === 'finished' || e.type === 'lost') resolve(e);
  });
  return { events, previews, end };
}

const until = (check: () => boolean, what: string) => waitFor(check, what);

for (const version of ['0.3.64', '2026', 'legacy'] as FakeVersion[]) {
  describe(`ComfyUiExecutor faults and events against the fake ComfyUI ${version}`, function () {
    this.timeout(20_000);
    let fake: FakeComfyUI;
    let proxy: TcpProxy;
    let executor: ComfyUiExecutor;
    let url: string;
    beforeEach(async () => {
      fake = await startFakeComfyUI({ version, executionMs: 60, progressSteps: 4 });
      proxy = new TcpProxy(fake.port);
      await proxy.start();
      url = proxy.url;
      // A slow confirmation timer: the socket, or its reconnection, must carry these runs.
      executor = new ComfyUiExecutor({ urls: [url], confirmIntervalMs: 60_000, probeIntervalMs: 100 });
      await executor.probe();
    });
    afterEach(async () => {
      await executor.close();
      await proxy.close();
      await fake.close();
    });

    it('reports started, each executing node, sampler progress and one terminal event, in order', async () => {
      const job = textToImage();
      expect(await executor.submit(url, job)).to.deep.equal({ accepted: true });
      const { events, end } = follow(executor, url, job.runId);
      const last = await end;
      // Not synchronisation: past the re-check the follower schedules 250 ms after an end message, the
      // one source of a second terminal event, which must not come.
      await new Promise((r) => setTimeout(r, 300));
      expect(last.type === 'finished' && last.result.state).to.equal('succeeded');
      expect(events[0]?.type).to.equal('started');
      const executing = events.flatMap((e) => (e.type === 'executing' ? [e.nodeId] : []));
      expect(executing).to.include.members(['3', '9']);
      const progress = events.flatMap((e) => (e.type === 'progress' ? [e] : []));
      // The run as a whole: nodes done out of the 7 to run, refined by the sampler's 4 steps.
      expect(progress.every((p) => p.max === 7), JSON.stringify(progress)).to.equal(true);
      expect(progress.map((p) => p.value), 'never backwards').to.deep.equal(progress.map((p) => p.value).sort((a, b) => a - b));
      expect(progress.at(-1)?.value).to.equal(7);
      const sampler = progress.filter((p) => p.nodeId === '3').map((p) => p.value);
      expect(sampler.filter((v) => !Number.isInteger(v)), 'refined by the steps within the sampler').to.have.length(3);
      const said = progress.map((p) => `${p.nodeId}:${p.value}`);
      expect(new Set(said).size, 'each change reported once').to.equal(said.length);
      expect(events.filter((e) => e.type === 'finished' || e.type === 'lost')).to.have.length(1);
      expect(events.at(-1)).to.equal(last);
    });

    it('still reports a run whose socket is dropped mid-run (confirmed on reconnection)', async () => {
      fake.setExecutionMs(800);
      const job = blur();
      await executor.submit(url, job);
      const { events, end } = follow(executor, url, job.runId);
      await until(() => events.some((e) => e.type === 'started'), 'the start');
      expect(proxy.dropSockets()).to.be.greaterThan(0);
      const last = await end;
      expect(last.type === 'finished' && last.result.state).to.equal('succeeded');
    });

    it('still reports a run whose socket goes silent, through the slow confirmation timer', async () => {
      await executor.close();
      executor = new ComfyUiExecutor({ urls: [url], confirmIntervalMs: 300, probeIntervalMs: 100 });
      await executor.probe();
      fake.setExecutionMs(200);
      proxy.mute();
      const job = blur();
      await executor.submit(url, job);
      const last = await follow(executor, url, job.runId).end;
      expect(last.type === 'finished' && last.result.state).to.equal('succeeded');
    });

    it('reports lost when the backend dies before the run starts, and the run never executed', async () => {
      fake.pause();
      const job = blur();
      await executor.submit(url, job);
      const { end } = follow(executor, url, job.runId);
      await fake.crash();
      await fake.restart();
      expect((await end).type).to.equal('lost');
      expect(fake.prompts.length).to.equal(1);
      expect(fake.executedCount(fake.prompts[0]?.prompt_id ?? '')).to.equal(0);
    });

    it('reports lost when the backend dies while the run executes', async () => {
      fake.setExecutionMs(2000);
      const job = blur();
      await executor.submit(url, job);
      const { events, end } = follow(executor, url, job.runId);
      await until(() => events.some((e) => e.type === 'started'), 'the start');
      await fake.crash();
      await fake.restart();
      expect((await end).type).to.equal('lost');
    });

    it('cancels its own queued run without interrupting another client’s running prompt', async () => {
      fake.setExecutionMs(600);
      const foreign = await fetch(`${fake.url}/prompt`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: { ...TEXT_TO_IMAGE, '3': { ...TEXT_TO_IMAGE['3'], inputs: { ...TEXT_TO_IMAGE['3']?.inputs, seed: 999_999 } } }, client_id: 'someone-else' }),
      });
      const foreignId = ((await foreign.json()) as { prompt_id: string }).prompt_id;
      const ours = blur();
      await executor.submit(url, ours);
      expect((await executor.inspect(url, ours.runId)).state).to.equal('queued');
      await executor.cancel(url, ours.runId);
      expect((await executor.inspect(url, ours.runId)).state).to.equal('unknown');
      await until(() => fake.executedCount(foreignId) === 1, 'the foreign prompt');
      const entry = await waitFor(
        async () => ((await (await fetch(`${fake.url}/history/${foreignId}`)).json()) as Record<string, { status?: { status_str?: string } }>)[foreignId],
        'the history entry of the foreign prompt',
      );
      expect(entry.status?.status_str, 'the other prompt was not interrupted').to.equal('success');
    });

    it('offers a reachable backend to placement with the prompts other clients hold there, not its own', async () => {
      await executor.probe();
      expect(executor.placement()).to.deep.equal([{ id: url, foreignPrompts: 0 }]);
      fake.setExecutionMs(800);
      const ours = blur();
      await executor.submit(url, ours);
      const foreign = await fetch(`${fake.url}/prompt`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: { ...TEXT_TO_IMAGE, '3': { ...TEXT_TO_IMAGE['3'], inputs: { ...TEXT_TO_IMAGE['3']?.inputs, seed: 777_777 } } }, client_id: 'someone-else' }),
      });
      expect(foreign.status).to.equal(200);
      await executor.probe();
      expect(executor.placement(), 'runload\'s own prompt is counted by the claims, not here').to.deep.equal([{ id: url, foreignPrompts: 1 }]);
      await follow(executor, url, ours.runId).end;
      await fake.crash();
      await executor.probe();
      expect(executor.placement(), 'unreachable').to.deep.equal([]);
    });
  });
}
