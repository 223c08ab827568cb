/**
 * The shipped core-node definitions and the fake ComfyUI's come from the same source, ComfyUI
 * v0.3.64's `/object_info`: every widget of every class both know has the same type, the same
 * options (server file lists aside) and the same bounds and defaults.
 */
import { expect } from 'chai';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { BuiltinNodeCatalog } from '@runload/gpu-adapter';

type Spec = [unknown, Record<string, unknown>?];
type Info = { input: { required?: Record<string, Spec>; optional?: Record<string, Spec> } };

/** What decides how a widget is typed and checked; file combos keep their shape only (their files vary per server). */
function essentials(spec: Spec): unknown {
  const [type, options = {}] = spec;
  const picked = Object.fromEntries(['default', 'min', 'max', 'step', 'image_upload', 'video_upload', 'audio_upload'].filter((k) => k in options).map((k) => [k, options[k]]));
  const uploads = picked['image_upload'] || picked['video_upload'] || picked['audio_upload'];
  if (Array.isArray(type)) return { combo: uploads ? 'files' : type, ...picked };
  if (type === 'COMBO') return { combo: uploads ? 'files' : options['options'], ...picked };
  return { type, ...picked };
}

describe('shipped core-node definitions against the fake ComfyUI 0.3.64', () => {
  let fake: FakeComfyUI;
  before(async () => {
    fake = await startFakeComfyUI({ version: '0.3.64' });
  });
  after(() => fake.close());

  it('has KSampler offer the 42 samplers of ComfyUI 0.3.64, including the five it used to lack', async () => {
    const shipped = (await new BuiltinNodeCatalog().describe(['KSampler']))['KSampler'] as unknown as Info;
    const samplers = shipped.input.required?.['sampler_name']?.[0] as string[];
    expect(samplers).to.have.length(42);
    expect(samplers).to.include.members(['dpmpp_2m_sde_heun', 'dpmpp_2m_sde_heun_gpu', 'gradient_estimation_cfg_pp', 'sa_solver', 'sa_solver_pece']);
  });

  it('agrees with the fake on every widget of every class both ship', async () => {
    const all = (await (await fetch(`${fake.url}/object_info`)).json()) as Record<string, Info>;
    const shipped = await new BuiltinNodeCatalog().describe(Object.keys(all));
    const shared = Object.keys(shipped);
    expect(shared.length, 'classes both know').to.be.above(15);
    for (const name of shared) {
      const ours = shipped[name] as unknown as Info;
      const theirs = all[name] as Info;
      for (const group of ['required', 'optional'] as const) {
        const a = Object.fromEntries(Object.entries(ours.input[group] ?? {}).map(([k, v]) => [k, essentials(v)]));
        const b = Object.fromEntries(Object.entries(theirs.input[group] ?? {}).map(([k, v]) => [k, essentials(v)]));
        // Model-file combos ship empty: their options are whatever files each server holds.
        for (const [k, v] of Object.entries(a)) {
          const combo = (v as { combo?: unknown }).combo;
          if (Array.isArray(combo) && combo.length === 0 && b[k]) {
            a[k] = { ...(v as object), combo: 'files' };
            b[k] = { ...(b[k] as object), combo: 'files' };
          }
        }
        expect(a, `${name}.${group}`).to.deep.equal(b);
      }
    }
  });
});
