/**
 * The pool as the registry holds it, against fake ComfyUI servers: publishing types a workflow
 * over every backend (not the first of the list), placement follows drains and labels, and a
 * backend the pool drops loses the runs recorded there.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreError, createRunloadApi, DEFAULT_LIMITS, type PoolMember } from '@runload/core';
import { createInMemoryPorts, waitFor } from '@runload/core/testing';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { ComfyUiExecutor, ComfyUiNodeCatalog } from '@runload/gpu-adapter';

const SDXL = 'sdxl.safetensors';
const workflow = (checkpoint: string) => ({
  '3': { class_type: 'KSampler', inputs: { model: ['4', 0], positive: ['6', 0], negative: ['6', 0], latent_image: ['5', 0], seed: 1, steps: 20, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1 } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: checkpoint } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a cat', clip: ['4', 1] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'cat' } },
});

describe('the pool as data, on fake ComfyUI servers', function () {
  let a: FakeComfyUI;
  let b: FakeComfyUI;
  let executor: ComfyUiExecutor | null = null;
  beforeEach(async () => {
    // Only B has the SDXL checkpoint.
    a = await startFakeComfyUI();
    b = await startFakeComfyUI({ checkpoints: ['v1-5-pruned-emaonly.safetensors', SDXL] });
  });
  afterEach(async () => {
    await executor?.close();
    executor = null;
    await a.close();
    await b.close();
  });

  const member = (url: string, extra: Partial<PoolMember> = {}): PoolMember => ({ url, accepting: true, labels: {}, depth: null, auth: null, ...extra });

  it('publishes an app using a checkpoint only the second backend of the list has, whatever the order', async () => {
    for (const order of [
      [a.url, b.url],
      [b.url, a.url],
    ]) {
      const api = createRunloadApi(createInMemoryPorts({ nodeCatalog: new ComfyUiNodeCatalog(order) }), DEFAULT_LIMITS);
      const app = await api.apps.publish({ name: 'sdxl', workflow: workflow(SDXL) });
      const options = app.inputs.find((i) => i.key === '4:ckpt_name')?.options;
      expect(options, `typed over ${order.join(', ')}`).to.include(SDXL).and.to.include('v1-5-pruned-emaonly.safetensors');
    }
  });

  it('still refuses a checkpoint no backend of the pool has', async () => {
    const api = createRunloadApi(createInMemoryPorts({ nodeCatalog: new ComfyUiNodeCatalog([a.url, b.url]) }), DEFAULT_LIMITS);
    const error = await api.apps.publish({ name: 'x', workflow: workflow('nowhere.safetensors') }).catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'INVALID_WORKFLOW')).to.equal(true);
  });

  it('offers only active backends, places by labels and names the missing labels', async () => {
    executor = new ComfyUiExecutor();
    await executor.usePool([member(a.url, { labels: { gpu: 't4' } }), member(b.url, { labels: { gpu: 'a100' }, depth: 2 })]);
    await waitFor(() => executor?.placement().length === 2, 'both backends probed');
    expect(executor.placement().find((p) => p.id === b.url)?.depth).to.equal(2);
    const work = { workflow: workflow('v1-5-pruned-emaonly.safetensors'), inputs: {}, requireLabels: { gpu: 'a100' } };
    expect(executor.lacks(a.url, work)).to.equal('labels gpu=a100');
    expect(executor.lacks(b.url, work)).to.equal(null);
    expect(executor.missingEverywhere({ ...work, requireLabels: { gpu: 'h100' } })).to.equal('no backend has labels gpu=h100');
    expect(executor.missingEverywhere({ ...work, workflow: workflow('nowhere.safetensors') })).to.equal('no backend with labels gpu=a100 has checkpoint nowhere.safetensors');
    // Drained: it keeps what it holds, gets nothing new.
    await executor.usePool([member(a.url, { labels: { gpu: 't4' } }), member(b.url, { accepting: false })]);
    expect(executor.placement().map((p) => p.id)).to.deep.equal([a.url]);
  });

  it('treats a run recorded on a backend the pool dropped as unknown (lost), and a new backend as usable at once', async () => {
    executor = new ComfyUiExecutor();
    await executor.usePool([member(a.url)]);
    expect(executor.placement().map((p) => p.id)).to.deep.equal([a.url]);
    await executor.usePool([member(b.url)]);
    expect(executor.placement().map((p) => p.id), 'probed before usePool resolves').to.deep.equal([b.url]);
    expect(await executor.inspect(a.url, '00000000-0000-4000-8000-000000000001')).to.deep.equal({ state: 'unknown' });
  });

  it('sends a backend credentials on every request (behind an authenticating proxy) and never shows them', async () => {
    const seen: (string | undefined)[] = [];
    // A proxy that lets through only requests with the key.
    const proxy = http.createServer((req, res) => {
      seen.push(req.headers['x-gpu-key'] as string | undefined);
      if (req.headers['x-gpu-key'] !== 's3cret') return void res.writeHead(401).end();
      const upstream = http.request(`${a.url}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      executor = new ComfyUiExecutor();
      await executor.usePool([member(url, { auth: { kind: 'header', name: 'X-Gpu-Key', value: 's3cret' } })]);
      expect(executor.placement().map((p) => p.id)).to.deep.equal([url]);
      expect(seen.length).to.be.greaterThan(0);
      expect(seen.every((v) => v === 's3cret')).to.equal(true);
      expect(JSON.stringify(await executor.health())).to.not.include('s3cret');
      // Without them the proxy refuses: the backend is unreachable.
      await executor.usePool([member(url)]);
      await waitFor(() => executor?.placement().length === 0, 'the backend without credentials is refused');
    } finally {
      await executor?.close();
      executor = null;
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
