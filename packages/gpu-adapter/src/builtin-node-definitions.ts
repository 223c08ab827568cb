/**
 * Widget definitions of ComfyUI's core nodes, in `/object_info`'s own shape, shipped so that a
 * workflow can be typed (INT vs FLOAT, bounds, combo options, upload widgets) with no backend
 * reachable. Model-file combos carry no options here: the files depend on each server.
 * @module
 */
import type { NodeInfo } from '@runload/core';

const MAX_SEED = 0xffffffffffffffff;
/** Python's sys.maxsize, PrimitiveInt's bound. */
const I64_MAX = 9223372036854775807;

/** ComfyUI v0.3.64's `KSampler.sampler_name` options, in its order: 42 (KSAMPLER_NAMES, then ddim, uni_pc, uni_pc_bh2). */
export const SAMPLERS = [
  'euler', 'euler_cfg_pp', 'euler_ancestral', 'euler_ancestral_cfg_pp', 'heun', 'heunpp2', 'dpm_2', 'dpm_2_ancestral', 'lms',
  'dpm_fast', 'dpm_adaptive', 'dpmpp_2s_ancestral', 'dpmpp_2s_ancestral_cfg_pp', 'dpmpp_sde', 'dpmpp_sde_gpu', 'dpmpp_2m',
  'dpmpp_2m_cfg_pp', 'dpmpp_2m_sde', 'dpmpp_2m_sde_gpu', 'dpmpp_2m_sde_heun', 'dpmpp_2m_sde_heun_gpu', 'dpmpp_3m_sde',
  'dpmpp_3m_sde_gpu', 'ddpm', 'lcm', 'ipndm', 'ipndm_v', 'deis', 'res_multistep', 'res_multistep_cfg_pp',
  'res_multistep_ancestral', 'res_multistep_ancestral_cfg_pp', 'gradient_estimation', 'gradient_estimation_cfg_pp', 'er_sde',
  'seeds_2', 'seeds_3', 'sa_solver', 'sa_solver_pece', 'ddim', 'uni_pc', 'uni_pc_bh2',
];

export const SCHEDULERS = ['simple', 'sgm_uniform', 'karras', 'exponential', 'ddim_uniform', 'beta', 'normal', 'linear_quadratic', 'kl_optimal'];

const seed = ['INT', { default: 0, min: 0, max: MAX_SEED, control_after_generate: true }] as const;
const steps = ['INT', { default: 20, min: 1, max: 10000 }] as const;
const cfg = ['FLOAT', { default: 8.0, min: 0.0, max: 100.0, step: 0.1, round: 0.01 }] as const;
const dimension = ['INT', { default: 512, min: 16, max: 16384, step: 8 }] as const;
const prefix = (value: string) => ['STRING', { default: value }] as const;
const files = (flags: Record<string, boolean> = {}) => [[], flags] as const;

function node(required: Record<string, readonly unknown[]>, optional: Record<string, readonly unknown[]> = {}): NodeInfo {
  return { input: { required, optional } } as NodeInfo;
}

export const BUILTIN_NODE_DEFINITIONS: Readonly<Record<string, NodeInfo>> = {
  KSampler: node({
    model: ['MODEL'], seed, steps, cfg, sampler_name: [SAMPLERS], scheduler: [SCHEDULERS],
    positive: ['CONDITIONING'], negative: ['CONDITIONING'], latent_image: ['LATENT'],
    denoise: ['FLOAT', { default: 1.0, min: 0.0, max: 1.0, step: 0.01 }],
  }),
  KSamplerAdvanced: node({
    model: ['MODEL'], add_noise: [['enable', 'disable']], noise_seed: seed, steps, cfg,
    sampler_name: [SAMPLERS], scheduler: [SCHEDULERS], positive: ['CONDITIONING'], negative: ['CONDITIONING'],
    latent_image: ['LATENT'], start_at_step: ['INT', { default: 0, min: 0, max: 10000 }],
    end_at_step: ['INT', { default: 10000, min: 0, max: 10000 }], return_with_leftover_noise: [['disable', 'enable']],
  }),
  CheckpointLoaderSimple: node({ ckpt_name: files() }),
  LoraLoader: node({
    model: ['MODEL'], clip: ['CLIP'], lora_name: files(),
    strength_model: ['FLOAT', { default: 1.0, min: -100.0, max: 100.0, step: 0.01 }],
    strength_clip: ['FLOAT', { default: 1.0, min: -100.0, max: 100.0, step: 0.01 }],
  }),
  CLIPTextEncode: node({ text: ['STRING', { multiline: true, dynamicPrompts: true }], clip: ['CLIP'] }),
  EmptyLatentImage: node({ width: dimension, height: dimension, batch_size: ['INT', { default: 1, min: 1, max: 4096 }] }),
  VAEDecode: node({ samples: ['LATENT'], vae: ['VAE'] }),
  VAEEncode: node({ pixels: ['IMAGE'], vae: ['VAE'] }),
  SaveImage: node({ images: ['IMAGE'], filename_prefix: prefix('ComfyUI') }),
  PreviewImage: node({ images: ['IMAGE'] }),
  LoadImage: node({ image: files({ image_upload: true }) }),
  LoadImageMask: node({ image: files({ image_upload: true }), channel: [['alpha', 'red', 'green', 'blue']] }),
  ImageScale: node({
    image: ['IMAGE'], upscale_method: [['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos']],
    width: ['INT', { default: 512, min: 0, max: 16384, step: 1 }], height: ['INT', { default: 512, min: 0, max: 16384, step: 1 }],
    crop: [['disabled', 'center']],
  }),
  ImageInvert: node({ image: ['IMAGE'] }),
  ImageBlur: node({
    image: ['IMAGE'], blur_radius: ['INT', { default: 1, min: 1, max: 31, step: 1 }],
    sigma: ['FLOAT', { default: 1.0, min: 0.1, max: 10.0, step: 0.1 }],
  }),
  LoadVideo: node({ file: ['COMBO', { options: [], multiselect: false, video_upload: true }] }),
  LoadAudio: node({ audio: files({ audio_upload: true }) }),
  GetVideoComponents: node({ video: ['VIDEO'] }),
  CreateVideo: node({ images: ['IMAGE'], fps: ['FLOAT', { default: 30.0, min: 1.0, max: 120.0, step: 1.0 }] }, { audio: ['AUDIO'] }),
  SaveVideo: node({
    video: ['VIDEO'], filename_prefix: prefix('video/ComfyUI'),
    format: ['COMBO', { options: ['auto', 'mp4'], default: 'auto' }], codec: ['COMBO', { options: ['auto', 'h264'], default: 'auto' }],
  }),
  SaveAudio: node({ audio: ['AUDIO'], filename_prefix: prefix('audio/ComfyUI') }),
  PrimitiveString: node({ value: ['STRING', {}] }),
  PrimitiveStringMultiline: node({ value: ['STRING', { multiline: true }] }),
  PrimitiveInt: node({ value: ['INT', { min: -I64_MAX, max: I64_MAX, control_after_generate: true }] }),
  PrimitiveFloat: node({ value: ['FLOAT', { min: -I64_MAX, max: I64_MAX }] }),
  PrimitiveBoolean: node({ value: ['BOOLEAN', {}] }),
};
