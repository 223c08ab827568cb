/**
 * The backend registry placement reads: what each ComfyUI server can run, from its own
 * `/object_info` (node classes and model lists), and what no server has.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { ComfyUiExecutor } from '@runload/gpu-adapter';

const TEXT_TO_IMAGE = JSON.parse(readFileSync(new URL('../../../examples/workflows/text-to-image.api.json', import.meta.url), 'utf8')) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
const withCheckpoint = (name: string) => ({ ...TEXT_TO_IMAGE, '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: name } } });

describe('ComfyUI backend registry', () => {
  let withSdxl: FakeComfyUI;
  let plain: FakeComfyUI;
  let executor: ComfyUiExecutor;

  beforeEach(async () => {
    withSdxl = await startFakeComfyUI({ checkpoints: ['v1-5-pruned-emaonly.safetensors', 'sdxl.safetensors'] });
    plain = await startFakeComfyUI();
    executor = new ComfyUiExecutor({ urls: [withSdxl.url, plain.url], probeIntervalMs: 60_000 });
    await executor.probe();
  });

  afterEach(async () => {
    await executor.close();
    await withSdxl.close();
    await plain.close();
  });

  it('knows which server has a checkpoint, including one an input selects', () => {
    const sdxl = { workflow: withCheckpoint('sdxl.safetensors'), inputs: {} };
    expect(executor.lacks(withSdxl.url, sdxl)).to.equal(null);
    expect(executor.lacks(plain.url, sdxl)).to.equal('checkpoint sdxl.safetensors');
    const chosen = { workflow: TEXT_TO_IMAGE, inputs: { '4:ckpt_name': 'sdxl.safetensors' } };
    expect(executor.lacks(plain.url, chosen)).to.equal('checkpoint sdxl.safetensors');
    expect(executor.missingEverywhere(sdxl)).to.equal(null);
  });

  it('names what no server has: a checkpoint, or a node class', () => {
    expect(executor.missingEverywhere({ workflow: withCheckpoint('flux.safetensors'), inputs: {} })).to.equal('no backend has checkpoint flux.safetensors');
    const custom = { ...TEXT_TO_IMAGE, '10': { class_type: 'IPAdapterApply', inputs: {} } };
    expect(executor.missingEverywhere({ workflow: custom, inputs: {} })).to.equal('no backend has node class IPAdapterApply');
  });

  it('leaves fixed lists (samplers) and upload pickers to the prompt: they are not capabilities', () => {
    const odd = { ...TEXT_TO_IMAGE, '3': { ...TEXT_TO_IMAGE['3'], class_type: 'KSampler', inputs: { ...TEXT_TO_IMAGE['3']?.inputs, sampler_name: 'not-a-sampler' } } };
    expect(executor.missingEverywhere({ workflow: odd, inputs: {} })).to.equal(null);
    const upload = { '1': { class_type: 'LoadImage', inputs: { image: 'somebody.png' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } };
    expect(executor.missingEverywhere({ workflow: upload, inputs: { '1:image': 'an-asset-id' } })).to.equal(null);
  });
});
