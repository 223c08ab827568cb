import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveInputs, parseWorkflow } from '@runload/core';
import { BuiltinNodeCatalog } from '@runload/gpu-adapter';

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../examples/workflows');

async function typed(file: string) {
  const workflow = parseWorkflow(JSON.parse(readFileSync(path.join(examples, file), 'utf8')));
  const catalog = await new BuiltinNodeCatalog().describe(Object.values(workflow).map((n) => n.class_type));
  return new Map(deriveInputs(workflow, catalog).map((i) => [i.key, i]));
}

describe('BuiltinNodeCatalog', () => {
  it('types a text-to-image workflow as ComfyUI would, with no backend', async () => {
    const inputs = await typed('text-to-image.api.json');
    expect(inputs.get('3:seed')).to.include({ type: 'INT', min: 0, max: Number.MAX_SAFE_INTEGER, default: 42 });
    expect(inputs.get('3:steps')).to.include({ type: 'INT', min: 1, max: 10000 });
    expect(inputs.get('3:cfg')).to.include({ type: 'FLOAT', min: 0, max: 100, step: 0.1, default: 7 });
    expect(inputs.get('3:sampler_name')?.type).to.equal('COMBO');
    expect(inputs.get('3:sampler_name')?.options).to.include('euler');
    expect(inputs.get('3:scheduler')?.options).to.include('karras');
    expect(inputs.get('6:text')?.type).to.equal('STRING');
    expect(inputs.get('5:width')).to.include({ type: 'INT', min: 16, max: 16384 });
    expect(inputs.get('4:ckpt_name')?.type).to.equal('COMBO');
  });

  it('types loader widgets as media and ImageBlur bounds', async () => {
    const inputs = await typed('image-blur.api.json');
    expect(inputs.get('1:image')?.type).to.equal('IMAGE');
    expect(inputs.get('2:blur_radius')).to.include({ type: 'INT', min: 1, max: 31 });
    expect(inputs.get('2:sigma')).to.include({ type: 'FLOAT', min: 0.1, max: 10 });
  });

  it('ships every core node runload documents, with the seed range ComfyUI reports', async () => {
    const names = ['LoadImage', 'LoadImageMask', 'LoadVideo', 'LoadAudio', 'KSampler', 'KSamplerAdvanced', 'CheckpointLoaderSimple', 'CLIPTextEncode', 'EmptyLatentImage', 'VAEDecode', 'VAEEncode', 'SaveImage', 'PreviewImage', 'ImageScale', 'ImageInvert', 'ImageBlur', 'LoraLoader', 'SaveVideo', 'SaveAudio', 'GetVideoComponents', 'CreateVideo', 'PrimitiveString', 'PrimitiveInt', 'PrimitiveFloat', 'PrimitiveBoolean'];
    const found = await new BuiltinNodeCatalog().describe(names);
    expect(Object.keys(found)).to.have.members(names);
    const seed = (found['KSampler'] as unknown as { input: { required: { seed: [string, { min: number; max: number }] } } }).input.required.seed;
    expect(seed).to.deep.equal(['INT', { default: 0, min: 0, max: 0xffffffffffffffff, control_after_generate: true }]);
  });

  it('types the video and audio loaders as media', async () => {
    const workflow = parseWorkflow({
      '1': { class_type: 'LoadVideo', inputs: { file: 'clip.mp4' } },
      '2': { class_type: 'LoadAudio', inputs: { audio: 'voice.flac' } },
      '3': { class_type: 'LoadImageMask', inputs: { image: 'mask.png', channel: 'alpha' } },
      '4': { class_type: 'PrimitiveBoolean', inputs: { value: true } },
    });
    const catalog = await new BuiltinNodeCatalog().describe(['LoadVideo', 'LoadAudio', 'LoadImageMask', 'PrimitiveBoolean']);
    const inputs = new Map(deriveInputs(workflow, catalog).map((i) => [i.key, i]));
    expect(inputs.get('1:file')?.type).to.equal('VIDEO');
    expect(inputs.get('2:audio')?.type).to.equal('AUDIO');
    expect(inputs.get('3:image')?.type).to.equal('IMAGE');
    expect(inputs.get('3:channel')).to.include({ type: 'COMBO' });
    expect(inputs.get('3:channel')?.options).to.deep.equal(['alpha', 'red', 'green', 'blue']);
    expect(inputs.get('4:value')?.type).to.equal('BOOLEAN');
  });

  it('knows nothing of custom nodes, which are then typed from their literals', async () => {
    expect(await new BuiltinNodeCatalog().describe(['SomeCustomNode', 'KSampler'])).to.have.keys(['KSampler']);
  });
});
