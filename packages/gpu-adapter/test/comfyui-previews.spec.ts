/** Previews of followed runs, read from the fake ComfyUI's binary frames on every version it imitates. */
import { expect } from 'chai';
import type { ExecutionEvent, ExecutionJob, Preview } from '@runload/core';
import { waitFor } from '@runload/core/testing';
import { startFakeComfyUI, type FakeComfyUI, type FakeVersion } from '@runload/fake-comfyui';
import { ComfyUiExecutor } from '@runload/gpu-adapter';

const SAMPLER_WORKFLOW = {
  '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 4, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['6', 0], latent_image: ['5', 0] } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'v1-5-pruned-emaonly.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 16, height: 16, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse', clip: ['4', 1] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'runload' } },
};
let counter = 0;

function job(): ExecutionJob {
  counter += 1;
  return { runId: `00000000-0000-4000-8e00-${String(counter).padStart(12, '0')}`, workflow: SAMPLER_WORKFLOW, inputs: {}, media: {} };
}

function follow(executor: ComfyUiExecutor, backend: string, runId: string) {
  const previews: Preview[] = [];
  const events: string[] = [];
  const end = new Promise<ExecutionEvent>((resolve) =>
    executor.follow(backend, runId, (e) => {
      events.push(e.type);
      if (e.type === 'preview') previews.push(e.preview);
      if (e.type === 'finished' || e.type === 'lost') resolve(e);
    }),
  );
  return { previews, events, end };
}

for (const version of ['0.3.64', '2026', 'legacy'] as FakeVersion[]) {
  describe(`ComfyUiExecutor previews against the fake ComfyUI ${version}`, function () {
    this.timeout(20_000);
    let fake: FakeComfyUI;
    let executor: ComfyUiExecutor;
    let logs: { message: string; fields: Record<string, unknown> | undefined }[];
    beforeEach(async () => {
      fake = await startFakeComfyUI({ version, executionMs: 200, progressSteps: 5 });
      logs = [];
      executor = new ComfyUiExecutor({ urls: [fake.url], confirmIntervalMs: 200, probeIntervalMs: 100, log: (_level, message, fields) => logs.push({ message, fields }) });
      await executor.probe();
    });
    afterEach(async () => {
      await executor.close();
      await fake.close();
    });

    it("tells a followed run's sampler previews, one per step, as events that precede its end", async () => {
      const j = job();
      expect(await executor.submit(fake.url, j)).to.deep.equal({ accepted: true });
      const { previews, events, end } = follow(executor, fake.url, j.runId);
      expect((await end).type).to.equal('finished');
      expect(previews).to.have.length(5);
      for (const p of previews) expect({ nodeId: p.nodeId, contentType: p.contentType, magic: [...p.bytes.subarray(0, 3)] }).to.deep.equal({ nodeId: '3', contentType: 'image/jpeg', magic: [0xff, 0xd8, 0xff] });
      expect(new Set(previews.map((p) => Buffer.from(p.bytes).toString('hex'))).size, 'each step sends its own image').to.equal(5);
      expect(events.indexOf('preview')).to.be.greaterThan(events.indexOf('started'));
      expect(events.at(-1)).to.equal('finished');
    });

    it('ignores a malformed binary frame, says so once, and keeps following', async () => {
      const j = job();
      fake.pause();
      await executor.submit(fake.url, j);
      const { previews, end } = follow(executor, fake.url, j.runId);
      await waitFor(() => fake.prompts.length === 1, 'the prompt on the fake');
      for (const frame of [Buffer.from([0, 0]), Buffer.from([0, 0, 0, 1, 0, 0, 0, 9, 1, 2]), Buffer.from([0, 0, 0, 4, 0, 0, 0, 2, 0x7b])]) fake.sendBinaryFrame(frame);
      fake.resume();
      expect((await end).type).to.equal('finished');
      expect(previews).to.have.length(5);
      const said = logs.filter((l) => l.message.startsWith('malformed binary frame'));
      expect(said).to.have.length(1);
      expect(said[0]?.fields).to.deep.include({ backend: fake.url });
    });
  });
}
