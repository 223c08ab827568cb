import { waitFor } from '@runload/core/testing';
import { describeExecutorContract } from '@runload/core/contract-tests';
import { makePng, startFakeComfyUI, type FakeVersion } from '@runload/fake-comfyui';
import { ComfyUiExecutor } from '@runload/gpu-adapter';

const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'contract' } },
};
const PNG = makePng(2, 2, () => [0, 0, 0, 255]);

for (const version of ['0.3.64', '2026', 'legacy'] as FakeVersion[]) {
  describeExecutorContract(`ComfyUI client against the fake ComfyUI ${version}`, async () => {
    const fake = await startFakeComfyUI({ version, executionMs: 30 });
    const executor = new ComfyUiExecutor({ urls: [fake.url], confirmIntervalMs: 100, probeIntervalMs: 100 });
    await executor.probe();
    let seed = 0;
    const job = (runId: string, blur?: number) => {
      seed += 1;
      return {
        runId,
        workflow: blur === undefined ? { ...WORKFLOW, '3': { ...WORKFLOW['3'], inputs: { ...WORKFLOW['3'].inputs, filename_prefix: `c${seed}` } } } : { ...WORKFLOW, '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: blur, sigma: 1 } } },
        inputs: { '1:image': 'asset' },
        media: { '1:image': { assetId: 'aaaaaaaa-0000-4000-8000-00000000000c', filename: 'x.png', contentType: 'image/png', open: async () => (async function* () { yield PNG; })() } },
      };
    };
    return {
      executor,
      backendId: fake.url,
      job: (runId) => job(runId),
      invalidJob: (runId) => job(runId, 999),
      hold: () => fake.pause(),
      release: () => fake.resume(),
      slowDown: () => fake.setExecutionMs(5000),
      whenRunning: async (runId) => {
        await waitFor(async () => (await executor.inspect(fake.url, runId)).state === 'running', `run ${runId} to be running on the fake`);
      },
      failNext: () => fake.failNextWith({ nodeId: '2', message: 'contract failure' }),
      forgetAll: async () => {
        await fake.restart();
        await executor.probe();
      },
      teardown: async () => {
        await executor.close();
        await fake.close();
      },
    };
  });
}
