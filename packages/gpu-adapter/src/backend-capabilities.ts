/**
 * What one ComfyUI server can run, read from its `/object_info`: its node classes and, for each
 * COMBO input, the options it lists (checkpoints, LoRAs, VAEs, upscale models… come from its
 * model folders). File pickers of uploads are not capabilities: runload uploads those files.
 * @module
 */
import type { RunnableWork } from '@runload/core';
import { inputsByNode } from './apply-inputs.js';

/** How a missing option is named, by the input that takes it. */
const KINDS: Record<string, string> = {
  ckpt_name: 'checkpoint',
  lora_name: 'LoRA',
  vae_name: 'VAE',
  unet_name: 'diffusion model',
  clip_name: 'text encoder',
  clip_name1: 'text encoder',
  clip_name2: 'text encoder',
  control_net_name: 'ControlNet',
  style_model_name: 'style model',
  gligen_name: 'GLIGEN model',
  hypernetwork_name: 'hypernetwork',
};

type ObjectInfo = Record<string, { input?: { required?: Record<string, unknown>; optional?: Record<string, unknown> } }>;

export class BackendCapabilities {
  private readonly combos = new Map<string, Map<string, ReadonlySet<string>>>();

  constructor(info: ObjectInfo) {
    for (const [className, entry] of Object.entries(info)) {
      const inputs = new Map<string, ReadonlySet<string>>();
      for (const [name, spec] of Object.entries({ ...entry.input?.required, ...entry.input?.optional })) {
        const options = comboOptions(spec);
        if (options && fromServer(name, options)) inputs.set(name, new Set(options));
      }
      this.combos.set(className, inputs);
    }
  }

  /** What this server lacks to run the work (`checkpoint sdxl.safetensors`), or null. */
  lacks(work: RunnableWork): string | null {
    // The run's values read over the workflow's, without copying it (this runs for every claim).
    const set = inputsByNode(work.inputs, work.workflow);
    for (const [nodeId, node] of Object.entries(work.workflow)) {
      const inputs = this.combos.get(node.class_type);
      if (!inputs) return `node class ${node.class_type}`;
      const own = set.get(nodeId);
      for (const [name, value] of Object.entries(own ? { ...node.inputs, ...own } : node.inputs)) {
        const options = inputs.get(name);
        if (options && typeof value === 'string' && !options.has(value)) {
          const kind = KINDS[name] ?? (node.class_type === 'UpscaleModelLoader' ? 'upscale model' : `${node.class_type} ${name}`);
          return `${kind} ${value}`;
        }
      }
    }
    return null;
  }
}

/**
 * Whether a combo lists the server's own files (its model folders): the named model inputs, and
 * any list of file names (an empty list is a folder with nothing in it). Fixed lists (samplers,
 * schedulers) are the workflow's business, checked by the server when the prompt is sent.
 */
function fromServer(name: string, options: readonly string[]): boolean {
  return name in KINDS || name === 'model_name' || options.every((o) => /\.[A-Za-z0-9]{2,12}$/.test(o));
}

/** The options of a COMBO input spec (both the list form and the `COMBO` form), or null. */
function comboOptions(spec: unknown): string[] | null {
  if (!Array.isArray(spec)) return null;
  const [type, options] = spec as [unknown, Record<string, unknown> | undefined];
  // An upload picker lists the server's input files: runload uploads the run's own.
  if (options && (options['image_upload'] || options['video_upload'] || options['audio_upload'] || options['upload'])) return null;
  if (Array.isArray(type)) return type.filter((o): o is string => typeof o === 'string');
  if (type === 'COMBO' && Array.isArray(options?.['options'])) return (options['options'] as unknown[]).filter((o): o is string => typeof o === 'string');
  return null;
}
