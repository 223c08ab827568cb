/**
 * Capabilities are re-read after a backend reconnects, not only every few minutes: a ComfyUI
 * restarted with other checkpoints is placed by what it
 * has now, long before the periodic refresh (minutes) would notice.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { waitFor } from '@runload/core/testing';
import { ComfyUiExecutor } from '@runload/gpu-adapter';

const TEXT_TO_IMAGE = JSON.parse(readFileSync(new URL('../../../examples/workflows/text-to-image.api.json', import.meta.url), 'utf8')) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
const needing = (checkpoint: string) => ({ workflow: { ...TEXT_TO_IMAGE, '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: checkpoint } } }, inputs: {} });
const BASE = 'v1-5-pruned-emaonly.safetensors';

const until = (what: string, check: () => boolean) => waitFor(check, what, { intervalMs: 20 });

describe('ComfyUI backend capabilities after a restart', () => {
  let before: FakeComfyUI;
  let after: FakeComfyUI | undefined;
  let executor: ComfyUiExecutor;

  beforeEach(async () => {
    before = await startFakeComfyUI({ checkpoints: [BASE, 'sdxl.safetensors'] });
    // Probed often (as a deployment's 2 s, faster): the refresh every few minutes never comes in this test.
    executor = new ComfyUiExecutor({ urls: [before.url], probeIntervalMs: 50 });
    await executor.probe();
  });

  afterEach(async () => {
    await executor.close();
    await before.close();
    await after?.close();
  });

  it('places by the checkpoints the backend has after it restarts with others', async () => {
    const url = before.url;
    expect(executor.lacks(url, needing('sdxl.safetensors'))).to.equal(null);
    expect(executor.lacks(url, needing('flux.safetensors'))).to.equal('checkpoint flux.safetensors');

    await before.close();
    await until('the stopped backend leaves placement', () => executor.placement().length === 0);
    // The same address, now serving other models.
    after = await startFakeComfyUI({ port: before.port, checkpoints: [BASE, 'flux.safetensors'] });
    await until('the restarted backend is placed again', () => executor.placement().some((b) => b.id === url));
    await until('its new checkpoint list is read', () => executor.lacks(url, needing('flux.safetensors')) === null);

    expect(executor.lacks(url, needing('sdxl.safetensors'))).to.equal('checkpoint sdxl.safetensors');
    expect(executor.missingEverywhere(needing('sdxl.safetensors'))).to.equal('no backend has checkpoint sdxl.safetensors');
    expect(executor.missingEverywhere(needing('flux.safetensors'))).to.equal(null);
    expect(executor.lacks(url, needing(BASE))).to.equal(null);
  });
});
