/** The ComfyUI client against the fake ComfyUI, on every version it imitates. */
import { expect } from 'chai';
import { CoreError, type ExecutionEvent, type Preview, type ExecutionJob } from '@runload/core';
import { makePng, pngSize, startFakeComfyUI, type FakeComfyUI, type FakeVersion } from '@runload/fake-comfyui';
import { ComfyUiExecutor } from '@runload/gpu-adapter';
import { waitFor } from '@runload/core/testing';
import { outcomeOf, type HistoryEntry } from '../src/history-outcome.js';

const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 1, sigma: 1 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'runload' } },
};
const PNG = makePng(4, 4, () => [200, 100, 50, 255]);
let counter = 0;

function job(overrides: Partial<ExecutionJob> = {}): ExecutionJob {
  counter += 1;
  const runId = `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`;
  return {
    runId,
    workflow: WORKFLOW,
    inputs: { '1:image': 'asset-1', '2:blur_radius': 3 },
    media: {
      '1:image': {
        assetId: 'aaaaaaaa-0000-4000-8000-000000000001',
        filename: 'cat.PNG',
        contentType: 'image/png',
        open: async () =>
          (async function* () {
            yield PNG;
          })(),
      },
    },
    ...overrides,
  };
}

function collect(executor: ComfyUiExecutor, backend: string, runId: string) {
  const events: ExecutionEvent[] = [];
  /** Previews are kept apart: how many come depends on the fake's timing. */
  const previews: Preview[] = [];
  let resolve: (e: ExecutionEvent) => void = () => undefined;
  const end = new Promise<ExecutionEvent>((r) => (resolve = r));
  const stop = executor.follow(backend, runId, (e) => {
    if (e.type === 'preview') return void previews.push(e.preview);
    events.push(e);
    if (e.type === 'finished' || e.type === 'lost') resolve(e);
  });
  return { events, previews, end, stop };
}

async function readAll(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of source) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

for (const version of ['0.3.64', '2026', 'legacy'] as FakeVersion[]) {
  describe(`ComfyUiExecutor against the fake ComfyUI ${version}`, function () {
    this.timeout(20_000);
    let fake: FakeComfyUI;
    let executor: ComfyUiExecutor;
    beforeEach(async () => {
      fake = await startFakeComfyUI({ version, executionMs: 60, progressSteps: 3 });
      executor = new ComfyUiExecutor({ urls: [fake.url], confirmIntervalMs: 200, probeIntervalMs: 100 });
      await executor.probe();
    });
    afterEach(async () => {
      await executor.close();
      await fake.close();
    });

    it('uploads the media, applies the inputs, follows the run and downloads a valid PNG', async () => {
      const j = job();
      expect(await executor.submit(fake.url, j)).to.deep.equal({ accepted: true });
      const sent = fake.prompts[0];
      expect(sent?.extra_data['runload_run_id']).to.equal(j.runId);
      const prompt = sent?.prompt as typeof WORKFLOW;
      expect(prompt['1'].inputs.image).to.equal('runload/aaaaaaaa-0000-4000-8000-000000000001.png');
      expect(prompt['2'].inputs.blur_radius).to.equal(3);
      expect(WORKFLOW['2'].inputs.blur_radius, 'the caller workflow is untouched').to.equal(1);
      const { events, end } = collect(executor, fake.url, j.runId);
      const last = await end;
      expect(events[0]?.type).to.equal('started');
      expect(last.type).to.equal('finished');
      if (last.type !== 'finished' || last.result.state !== 'succeeded') throw new Error(`unexpected ${JSON.stringify(last)}`);
      expect(last.result.outputs).to.have.length(1);
      if (version !== 'legacy') {
        expect(last.result.timing?.finishedAtMs).to.be.greaterThan(last.result.timing?.startedAtMs ?? Infinity);
      }
      const out = await executor.fetchOutput(fake.url, last.result.outputs[0] as never);
      expect(out.contentType).to.equal('image/png');
      const bytes = await readAll(await out.open());
      expect([...bytes.subarray(0, 8)], 'the PNG signature').to.deep.equal([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(pngSize(bytes), 'a blur keeps the size of the uploaded image').to.deep.equal({ width: 4, height: 4 });
      expect(fake.executedCount(fake.prompts[0]?.prompt_id ?? '')).to.equal(1);
    });

    it('downloads an output the socket announced while the outcome is read, and uses that download', async () => {
      const j = job();
      await executor.submit(fake.url, j);
      const { end } = collect(executor, fake.url, j.runId);
      const last = await end;
      if (last.type !== 'finished' || last.result.state !== 'succeeded') throw new Error(`unexpected ${JSON.stringify(last)}`);
      // Nobody has asked for the file yet: its download began when the socket said the node saved it.
      await waitFor(() => (fake.requestCounts.get('GET /view') ?? 0) >= 1, 'the output requested before anyone asked for it', { timeoutMs: 2000 });
      const out = await executor.fetchOutput(fake.url, last.result.outputs[0] as never);
      expect(pngSize(await readAll(await out.open()))).to.deep.equal({ width: 4, height: 4 });
      expect(fake.requestCounts.get('GET /view'), 'downloaded once: the download begun ahead was taken').to.equal(1);
    });

    if (version === 'legacy') {
      it("reads a finished run's history once, though the end is announced twice", async () => {
        const j = job();
        await executor.submit(fake.url, j);
        const { end } = collect(executor, fake.url, j.runId);
        expect((await end).type).to.equal('finished');
        // Not synchronisation: past the re-check the follower schedules 250 ms after an end message, which must read nothing.
        await new Promise((r) => setTimeout(r, 300));
        const promptId = fake.prompts[0]?.prompt_id ?? '';
        expect(fake.requestCounts.get(`GET /history/${promptId}`)).to.equal(1);
      });
    } else {
      it('takes the outcome of a success the socket told whole, the same as its history, and reads no history', async () => {
        // The second run is the first again: every node is cached, and the output node told again.
        for (const [i, j] of [job(), job()].entries()) {
          await executor.submit(fake.url, j);
          const { end } = collect(executor, fake.url, j.runId);
          const last = await end;
          if (last.type !== 'finished') throw new Error(`unexpected ${JSON.stringify(last)}`);
          // Not synchronisation: past the re-check the follower schedules 250 ms after an end message, which must read nothing.
          await new Promise((r) => setTimeout(r, 300));
          expect(fake.requestCounts.get(`GET /history/${j.runId}`) ?? 0, 'no history read').to.equal(0);
          const entry = ((await (await fetch(`${fake.url}/history/${j.runId}`)).json()) as Record<string, HistoryEntry>)[j.runId] as HistoryEntry;
          expect(last.result).to.deep.equal(outcomeOf(entry));
          expect(last.result.state === 'succeeded' && last.result.outputs.length, 'its output').to.equal(1);
          const cached = entry.status?.messages?.find(([type]) => type === 'execution_cached')?.[1]['nodes'];
          expect(cached, 'the first run ran, the second came from the cache').to.deep.equal(i === 0 ? [] : ['1', '2', '3']);
        }
      });
    }

    it('settles an announced end without reading the queue again (from the history, where the socket does not tell it whole)', async () => {
      // No timer confirmations here: every /queue read comes from following or from the end.
      // The shared executor's probes read the queue too (other clients' prompts count against the depth).
      await executor.close();
      const quiet = new ComfyUiExecutor({ urls: [fake.url], confirmIntervalMs: 60_000, probeIntervalMs: 60_000 });
      try {
        await quiet.probe();
        // The probe reads the queue too (other clients' prompts count against the depth).
        const probed = fake.requestCounts.get('GET /queue') ?? 0;
        const j = job();
        await quiet.submit(fake.url, j);
        const { end } = collect(quiet, fake.url, j.runId);
        expect((await end).type).to.equal('finished');
        // Not synchronisation: past the re-check the follower schedules 250 ms after an end message, which must read nothing.
        await new Promise((r) => setTimeout(r, 300));
        // A prompt sent from here is confirmed when following begins only if the server spoke of it before.
        expect((fake.requestCounts.get('GET /queue') ?? 0) - probed, 'at most one confirmation, when following began').to.be.at.most(1);
        // Read once, where the socket does not tell the outcome whole.
        expect(fake.requestCounts.get(`GET /history/${fake.prompts[0]?.prompt_id ?? ''}`) ?? 0).to.equal(version === 'legacy' ? 1 : 0);
      } finally {
        await quiet.close();
      }
    });

    it('reports a refused prompt as VALIDATION_ERROR with the node errors', async () => {
      const result = await executor.submit(fake.url, job({ inputs: { '2:blur_radius': 99 } }));
      expect(result.accepted).to.equal(false);
      if (result.accepted) return;
      expect(result.error).to.deep.include({ code: 'VALIDATION_ERROR', message: 'Prompt outputs failed validation', nodeId: '2', nodeType: 'ImageBlur' });
    });

    it('refuses a prompt the backend accepted while dropping a refused output, and takes it back before it runs', async () => {
      fake.pause();
      const partly = {
        ...WORKFLOW,
        '4': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 99, sigma: 1 } },
        '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'dropped' } },
      };
      const j = job({ workflow: partly });
      const result = await executor.submit(fake.url, j);
      expect(result.accepted).to.equal(false);
      if (result.accepted) return;
      expect(result.error).to.deep.include({ code: 'VALIDATION_ERROR', nodeId: '4', nodeType: 'ImageBlur' });
      expect(result.error.message).to.equal('Some nodes of the workflow failed validation (4); the run was stopped before it executed');
      expect(Object.keys((result.error.details as { node_errors: Record<string, unknown> }).node_errors)).to.deep.equal(['4']);
      expect((await executor.inspect(fake.url, j.runId)).state, 'taken off the queue').to.equal('unknown');
      fake.resume();
      expect((await executor.inspect(fake.url, j.runId)).state).to.equal('unknown');
      expect(fake.executedCount(fake.prompts[0]?.prompt_id ?? '')).to.equal(0);
    });

    it('keeps an unreadable output error short, though the file name is 20,000 characters long', async () => {
      const error = await executor.fetchOutput(fake.url, { nodeId: '3', filename: `${'p'.repeat(20_000)}_00001_.png`, subfolder: '', type: 'output' }).catch((e: unknown) => e);
      expect(CoreError.hasCode(error, 'SERVICE_UNAVAILABLE')).to.equal(true);
      expect((error as Error).message).to.match(/answered 431/);
      expect((error as Error).message.length).to.be.below(400);
    });

    it('names the class of a node the backend does not have', async () => {
      const result = await executor.submit(fake.url, job({ workflow: { ...WORKFLOW, '7': { class_type: 'NoSuchNode', inputs: {} } } }));
      expect(result.accepted).to.equal(false);
      if (result.accepted) return;
      expect(result.error).to.deep.include({ code: 'VALIDATION_ERROR', nodeId: '7', nodeType: 'NoSuchNode' });
    });

    it("keeps the backend's absolute file paths out of an execution error's message", async () => {
      fake.failNextWith({ nodeId: '1', exceptionType: 'FileNotFoundError', message: "[Errno 2] No such file or directory: '/srv/gpu/ComfyUI/input/runload/aaaaaaaa.mp4'" });
      const j = job();
      await executor.submit(fake.url, j);
      const last = await collect(executor, fake.url, j.runId).end;
      if (last.type !== 'finished' || last.result.state !== 'failed') throw new Error(`unexpected ${JSON.stringify(last)}`);
      expect(last.result.error.message).to.equal("[Errno 2] No such file or directory: 'aaaaaaaa.mp4'");
    });

    it('reports a node error with the node, and a run that finished before anyone listened', async () => {
      fake.failNextWith({ nodeId: '2', exceptionType: 'torch.OutOfMemoryError', message: 'out of memory' });
      const j = job();
      await executor.submit(fake.url, j);
      await waitFor(async () => (await executor.inspect(fake.url, j.runId)).state === 'failed', 'the backend to fail the run before anyone listens');
      const { end } = collect(executor, fake.url, j.runId);
      const last = await end;
      expect(last.type === 'finished' && last.result.state).to.equal('failed');
      if (last.type === 'finished' && last.result.state === 'failed') {
        expect(last.result.error).to.deep.include({ code: 'EXECUTION_ERROR', nodeId: '2', nodeType: 'ImageBlur', message: 'out of memory' });
      }
    });

    it('removes a queued run and interrupts a running one', async () => {
      fake.setExecutionMs(1500);
      const running = job();
      const waiting = job({ inputs: { '2:blur_radius': 5 } });
      await executor.submit(fake.url, running);
      await executor.submit(fake.url, waiting);
      expect((await executor.inspect(fake.url, waiting.runId)).state).to.equal('queued');
      await executor.cancel(fake.url, waiting.runId);
      expect((await executor.inspect(fake.url, waiting.runId)).state).to.equal('unknown');
      const { end } = collect(executor, fake.url, running.runId);
      await waitFor(async () => (await executor.inspect(fake.url, running.runId)).state === 'running', 'the first run to start');
      await executor.cancel(fake.url, running.runId);
      const last = await end;
      expect(last.type === 'finished' && last.result.state).to.equal('interrupted');
    });

    it('reports a run lost when the backend restarts and forgets it, and health follows the backend', async () => {
      fake.setExecutionMs(3000);
      const j = job();
      await executor.submit(fake.url, j);
      const { end } = collect(executor, fake.url, j.runId);
      await waitFor(async () => (await executor.inspect(fake.url, j.runId)).state === 'running', 'the run to start before the backend crashes');
      await fake.crash();
      await executor.probe();
      expect((await executor.health()).available).to.equal(false);
      let refused: unknown = null;
      await executor.inspect(fake.url, j.runId).catch((e: unknown) => (refused = e));
      expect(CoreError.hasCode(refused, 'SERVICE_UNAVAILABLE')).to.equal(true);
      await fake.restart();
      await executor.probe();
      expect((await executor.health()).available).to.equal(true);
      expect((await end).type).to.equal('lost');
    });
  });
}
