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
    const api = createRunloadApi(createInMemoryPorts({ nodeCatalog: new ComfyUiNodeCatalog([fake.url]) }), DEFAULT_LIMITS);
    const app = await api.apps.publish({ name: 't2i', workflow });
    const sampler = app.inputs.find((i) => i.key === '3:sampler_name');
    expect(sampler?.options).to.deep.equal(['euler', 'euler_ancestral', 'heun', 'dpmpp_2m', 'ddim']);
    expect(app.inputs.find((i) => i.key === '4:ckpt_name')?.options).to.deep.equal(['v1-5-pruned-emaonly.safetensors']);
    const account = await api.accounts.create('a', 'plus');
    const principal = await api.authenticate.execute((await api.apiKeys.create(account.id)).apiKey, '::1');
    const error = await api.createRun
      .execute({ principal, appVersionId: app.id, body: { inputs: { '3:sampler_name': 'lcm', '3:steps': 0, '3:cfg': 7.5 } } })
      .catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'INVALID_INPUT')).to.equal(true);
    expect((error as CoreError).details).to.deep.equal([
      { key: '3:sampler_name', reason: 'must be one of: euler, euler_ancestral, heun, dpmpp_2m, ddim' },
      { key: '3:steps', reason: 'must be at least 1' },
    ]);
    await fake.close();
  });

  it('falls back to the shipped definitions when no backend answers', async () => {
    const catalog = new ComfyUiNodeCatalog(['http://127.0.0.1:9'], 500);
    const found = await catalog.describe(['KSampler', 'NoSuchNode']);
    expect(Object.keys(found)).to.deep.equal(['KSampler']);
  });
});
