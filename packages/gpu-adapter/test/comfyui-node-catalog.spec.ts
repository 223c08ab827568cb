/** Publishing against a reachable backend types inputs from its /object_info; run creation then enforces them. */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CoreError, createRunloadApi, DEFAULT_LIMITS } from '@runload/core';
import { createInMemoryPorts } from '@runload/core/testing';
import { startFakeComfyUI } from '@runload/fake-comfyui';
import { ComfyUiNodeCatalog } from '@runload/gpu-adapter';

const workflow = JSON.parse(readFileSync(new URL('../../../examples/workflows/text-to-image.api.json', import.meta.url), 'utf8')) as unknown;

describe('ComfyUiNodeCatalog', () => {
  it("types inputs with the reachable backend's own options and bounds, which run creation enforces", async () => {
    const fake = await startFakeComfyUI();
    const served = (await (await fetch(`${fake.url}/object_info/KSampler`)).json()) as { KSampler: { input: { required: { sampler_name: [string[]] } } } };
    const samplers = served.KSampler.input.required.sampler_name[0];
    const checkpoints = (await (await fetch(`${fake.url}/object_info/CheckpointLoaderSimple`)).json()) as { CheckpointLoaderSimple: { input: { required: { ckpt_name: [string[]] } } } };
    const api = createRunloadApi(createInMemoryPorts({ nodeCatalog: new ComfyUiNodeCatalog([fake.url]) }), DEFAULT_LIMITS);
    const app = await api.apps.publish({ name: 't2i', workflow });
    const sampler = app.inputs.find((i) => i.key === '3:sampler_name');
    expect(samplers.length).to.be.greaterThan(0);
    expect(sampler?.options).to.deep.equal(samplers);
    expect(app.inputs.find((i) => i.key === '4:ckpt_name')?.options).to.deep.equal(checkpoints.CheckpointLoaderSimple.input.required.ckpt_name[0]);
    const account = await api.accounts.create('a', 'plus');
    const principal = await api.authenticate.execute((await api.apiKeys.create(account.id)).apiKey, '::1');
    const error = await api.createRun
      .execute({ principal, appVersionId: app.id, body: { inputs: { '3:sampler_name': 'no_such_sampler', '3:steps': 0, '3:cfg': 7.5 } } })
      .catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'INVALID_INPUT')).to.equal(true);
    expect((error as CoreError).details).to.deep.equal([
      { key: '3:sampler_name', reason: `must be one of: ${samplers.slice(0, 20).join(', ')}${samplers.length > 20 ? ', …' : ''}` },
      { key: '3:steps', reason: 'must be at least 1' },
    ]);
    await fake.close();
  });

  it('refuses to publish a COMBO value the backend does not list, naming the node, the widget and the options', async () => {
    const fake = await startFakeComfyUI();
    const api = createRunloadApi(createInMemoryPorts({ nodeCatalog: new ComfyUiNodeCatalog([fake.url]) }), DEFAULT_LIMITS);
    const scaled = {
      '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
      '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'super-resolution', width: 64, height: 64, crop: 'disabled' } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'out' } },
    };
    const error = await api.apps.publish({ name: 'scale', workflow: scaled }).catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'INVALID_WORKFLOW')).to.equal(true);
    expect((error as Error).message).to.equal(
      'Node 2 (ImageScale) widget upscale_method: "super-resolution" is not one of its options: "nearest-exact", "bilinear", "area", "bicubic", "lanczos"',
    );
    expect(await api.apps.list()).to.deep.equal([]);
    // The same workflow with a listed value publishes.
    const fine = await api.apps.publish({ name: 'scale', workflow: { ...scaled, '2': { ...scaled['2'], inputs: { ...scaled['2'].inputs, upscale_method: 'bicubic' } } } });
    expect(fine.inputs.find((i) => i.key === '2:upscale_method')?.default).to.equal('bicubic');
    await fake.close();
  });

  it('refuses an unlisted COMBO value with the shipped definitions too, while no backend answers', async () => {
    const api = createRunloadApi(createInMemoryPorts({ nodeCatalog: new ComfyUiNodeCatalog(['http://127.0.0.1:9'], 500) }), DEFAULT_LIMITS);
    const workflow = JSON.parse(readFileSync(new URL('../../../examples/workflows/text-to-image.api.json', import.meta.url), 'utf8')) as Record<string, { inputs: Record<string, unknown> }>;
    const sa = structuredClone(workflow);
    (sa['3'] as { inputs: Record<string, unknown> }).inputs['sampler_name'] = 'sa_solver';
    expect((await api.apps.publish({ name: 'sa', workflow: sa })).inputs.find((i) => i.key === '3:sampler_name')?.default).to.equal('sa_solver');
    (sa['3'] as { inputs: Record<string, unknown> }).inputs['sampler_name'] = 'warp_drive';
    const error = await api.apps.publish({ name: 'sa', workflow: sa }).catch((e: unknown) => e);
    expect((error as Error).message).to.match(/^Node 3 \(KSampler\) widget sampler_name: "warp_drive" is not one of its options: "euler", /);
  });

  it('asks a healthy backend first and reuses its /object_info', async () => {
    const fake = await startFakeComfyUI();
    const unhealthy = await startFakeComfyUI();
    const down = unhealthy.url;
    let healthChecks = 0;
    const catalog = new ComfyUiNodeCatalog([down, fake.url], 500, {
      health: async () => {
        healthChecks += 1;
        return { available: true, backends: [{ id: down, url: down, healthy: false }, { id: fake.url, url: fake.url, healthy: true }] };
      },
    });
    const first = await catalog.describe(['KSampler', 'LoadImage']);
    const second = await catalog.describe(['KSampler']);
    expect(first['LoadImage']).to.deep.equal(((await (await fetch(`${fake.url}/object_info/LoadImage`)).json()) as Record<string, unknown>)['LoadImage']);
    expect(second['KSampler']).to.deep.equal(first['KSampler']);
    expect(fake.requestCounts.get('GET /object_info'), 'fetched once, then cached').to.equal(1);
    expect(healthChecks).to.equal(2);
    expect(unhealthy.requestCounts.get('GET /object_info'), 'the backend the probe marked unhealthy is not asked first').to.equal(undefined);
    await fake.close();
    await unhealthy.close();
  });

  it('falls back to the shipped definitions when no backend answers', async () => {
    const catalog = new ComfyUiNodeCatalog(['http://127.0.0.1:9'], 500);
    const found = await catalog.describe(['KSampler', 'NoSuchNode']);
    expect(Object.keys(found)).to.deep.equal(['KSampler']);
  });
});
