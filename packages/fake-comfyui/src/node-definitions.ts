/**
 * `/object_info` entries of the node classes the fake runs, written after ComfyUI v0.3.64's own
 * node sources (LoadImage, ImageInvert and SaveImage are byte-for-byte the recorded ones).
 * File combos (`image`, `audio`, `file`) are filled per request from the fake's input directory.
 * @module
 */

export type InputSpec = readonly unknown[];

export interface NodeDefinition {
  readonly input: { readonly required: Record<string, InputSpec>; readonly optional?: Record<string, InputSpec>; readonly hidden?: Record<string, string> };
  readonly output: readonly string[];
  readonly output_name?: readonly string[];
  readonly output_tooltips?: readonly string[];
  readonly display_name: string;
  readonly description?: string;
  readonly python_module: string;
  readonly category: string;
  readonly output_node?: boolean;
}

/** Python's 2**64-1 and sys.maxsize, which JSON.stringify cannot write exactly: serialised by name. */
export const U64_MAX = '__U64_MAX__';
export const I64_MAX = '__I64_MAX__';
export const I64_MIN = '__I64_MIN__';

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
/** The one checkpoint the fake's `models/checkpoints` holds unless told otherwise. */
export const CHECKPOINTS = ['v1-5-pruned-emaonly.safetensors'];
/** Stands for the checkpoints of this fake (its option `checkpoints`) in a combo spec. */
export const CHECKPOINT_LIST = '__CHECKPOINTS__';
export const FILE_LIST = '__INPUT_FILES__';

const SAVE_HIDDEN = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };
const SAVE_DESCRIPTION = 'Saves the input images to your ComfyUI output directory.';
const PREFIX_TOOLTIP =
  'The prefix for the file to save. This may include formatting information such as %date:yyyy-MM-dd% or %Empty Latent Image.width% to include values from nodes.';
const dimension = (tooltip: string): InputSpec => ['INT', { default: 512, min: 16, max: 16384, step: 8, tooltip }];
const primitive = (name: string, type: string, spec: Record<string, unknown>): NodeDefinition => ({
  input: { required: { value: [type, spec] } },
  output: [type],
  display_name: name,
  python_module: 'comfy_extras.nodes_primitive',
  category: 'utils/primitive',
});

export const NODE_DEFINITIONS: Record<string, NodeDefinition> = {
  LoadImage: {
    input: { required: { image: [FILE_LIST, { image_upload: true }] } },
    output: ['IMAGE', 'MASK'], display_name: 'Load Image', python_module: 'nodes', category: 'image',
  },
  LoadImageMask: {
    input: { required: { image: [FILE_LIST, { image_upload: true }], channel: [['alpha', 'red', 'green', 'blue']] } },
    output: ['MASK'], display_name: 'Load Image (as Mask)', python_module: 'nodes', category: 'mask',
  },
  LoadVideo: {
    input: { required: { file: ['COMBO', { options: FILE_LIST, multiselect: false, video_upload: true }] } },
    output: ['VIDEO'], display_name: 'Load Video', python_module: 'comfy_extras.nodes_video', category: 'image/video',
  },
  LoadAudio: {
    input: { required: { audio: [FILE_LIST, { audio_upload: true }] } },
    output: ['AUDIO'], display_name: 'Load Audio', python_module: 'comfy_extras.nodes_audio', category: 'audio',
  },
  ImageInvert: { input: { required: { image: ['IMAGE'] } }, output: ['IMAGE'], display_name: 'Invert Image', python_module: 'nodes', category: 'image' },
  ImageBlur: {
    input: {
      required: {
        image: ['IMAGE'],
        blur_radius: ['INT', { default: 1, min: 1, max: 31, step: 1 }],
        sigma: ['FLOAT', { default: 1.0, min: 0.1, max: 10.0, step: 0.1 }],
      },
    },
    output: ['IMAGE'], display_name: 'Image Blur', python_module: 'comfy_extras.nodes_post_processing', category: 'image/postprocessing',
  },
  ImageScale: {
    input: {
      required: {
        image: ['IMAGE'],
        upscale_method: [['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos']],
        width: ['INT', { default: 512, min: 0, max: 16384, step: 1 }],
        height: ['INT', { default: 512, min: 0, max: 16384, step: 1 }],
        crop: [['disabled', 'center']],
      },
    },
    output: ['IMAGE'], display_name: 'Upscale Image', python_module: 'nodes', category: 'image/upscaling',
  },
  SaveImage: {
    input: {
      required: { images: ['IMAGE', { tooltip: 'The images to save.' }], filename_prefix: ['STRING', { default: 'ComfyUI', tooltip: PREFIX_TOOLTIP }] },
      hidden: SAVE_HIDDEN,
    },
    output: [], display_name: 'Save Image', description: SAVE_DESCRIPTION, python_module: 'nodes', category: 'image', output_node: true,
  },
  PreviewImage: {
    input: { required: { images: ['IMAGE'] }, hidden: SAVE_HIDDEN },
    output: [], display_name: 'Preview Image', description: SAVE_DESCRIPTION, python_module: 'nodes', category: 'image', output_node: true,
  },
  SaveVideo: {
    input: {
      required: {
        video: ['VIDEO', { tooltip: 'The video to save.' }],
        filename_prefix: ['STRING', { default: 'video/ComfyUI', tooltip: PREFIX_TOOLTIP }],
        format: ['COMBO', { options: ['auto', 'mp4'], default: 'auto', tooltip: 'The format to save the video as.' }],
        codec: ['COMBO', { options: ['auto', 'h264'], default: 'auto', tooltip: 'The codec to use for the video.' }],
      },
      hidden: SAVE_HIDDEN,
    },
    output: [], display_name: 'Save Video', description: SAVE_DESCRIPTION, python_module: 'comfy_extras.nodes_video', category: 'image/video', output_node: true,
  },
  SaveAudio: {
    input: { required: { audio: ['AUDIO'], filename_prefix: ['STRING', { default: 'audio/ComfyUI' }] }, hidden: SAVE_HIDDEN },
    output: [], display_name: 'Save Audio (FLAC)', python_module: 'comfy_extras.nodes_audio', category: 'audio', output_node: true,
  },
  CheckpointLoaderSimple: {
    input: { required: { ckpt_name: [CHECKPOINT_LIST, { tooltip: 'The name of the checkpoint (model) to load.' }] } },
    output: ['MODEL', 'CLIP', 'VAE'],
    output_tooltips: [
      'The model used for denoising latents.',
      'The CLIP model used for encoding text prompts.',
      'The VAE model used for encoding and decoding images to and from latent space.',
    ],
    display_name: 'Load Checkpoint', description: 'Loads a diffusion model checkpoint, diffusion models are used to denoise latents.', python_module: 'nodes', category: 'loaders',
  },
  CLIPTextEncode: {
    input: {
      required: {
        text: ['STRING', { multiline: true, dynamicPrompts: true, tooltip: 'The text to be encoded.' }],
        clip: ['CLIP', { tooltip: 'The CLIP model used for encoding the text.' }],
      },
    },
    output: ['CONDITIONING'],
    output_tooltips: ['A conditioning containing the embedded text used to guide the diffusion model.'],
    display_name: 'CLIP Text Encode (Prompt)',
    description: 'Encodes a text prompt using a CLIP model into an embedding that can be used to guide the diffusion model towards generating specific images.',
    python_module: 'nodes', category: 'conditioning',
  },
  EmptyLatentImage: {
    input: {
      required: {
        width: dimension('The width of the latent images in pixels.'),
        height: dimension('The height of the latent images in pixels.'),
        batch_size: ['INT', { default: 1, min: 1, max: 4096, tooltip: 'The number of latent images in the batch.' }],
      },
    },
    output: ['LATENT'], output_tooltips: ['The empty latent image batch.'],
    display_name: 'Empty Latent Image', description: 'Create a new batch of empty latent images to be denoised via sampling.', python_module: 'nodes', category: 'latent',
  },
  KSampler: {
    input: {
      required: {
        model: ['MODEL', { tooltip: 'The model used for denoising the input latent.' }],
        seed: ['INT', { default: 0, min: 0, max: U64_MAX, control_after_generate: true, tooltip: 'The random seed used for creating the noise.' }],
        steps: ['INT', { default: 20, min: 1, max: 10000, tooltip: 'The number of steps used in the denoising process.' }],
        cfg: ['FLOAT', {
          default: 8.0, min: 0.0, max: 100.0, step: 0.1, round: 0.01,
          tooltip: 'The Classifier-Free Guidance scale balances creativity and adherence to the prompt. Higher values result in images more closely matching the prompt however too high values will negatively impact quality.',
        }],
        sampler_name: [SAMPLERS, { tooltip: 'The algorithm used when sampling, this can affect the quality, speed, and style of the generated output.' }],
        scheduler: [SCHEDULERS, { tooltip: 'The scheduler controls how noise is gradually removed to form the image.' }],
        positive: ['CONDITIONING', { tooltip: 'The conditioning describing the attributes you want to include in the image.' }],
        negative: ['CONDITIONING', { tooltip: 'The conditioning describing the attributes you want to exclude from the image.' }],
        latent_image: ['LATENT', { tooltip: 'The latent image to denoise.' }],
        denoise: ['FLOAT', { default: 1.0, min: 0.0, max: 1.0, step: 0.01, tooltip: 'The amount of denoising applied, lower values will maintain the structure of the initial image allowing for image to image sampling.' }],
      },
    },
    output: ['LATENT'], output_tooltips: ['The denoised latent.'],
    display_name: 'KSampler', description: 'Uses the provided model, positive and negative conditioning to denoise the latent image.', python_module: 'nodes', category: 'sampling',
  },
  VAEDecode: {
    input: { required: { samples: ['LATENT', { tooltip: 'The latent to be decoded.' }], vae: ['VAE', { tooltip: 'The VAE model used for decoding the latent.' }] } },
    output: ['IMAGE'], output_tooltips: ['The decoded image.'],
    display_name: 'VAE Decode', description: 'Decodes latent images back into pixel space images.', python_module: 'nodes', category: 'latent',
  },
  GetVideoComponents: {
    input: { required: { video: ['VIDEO', { tooltip: 'The video to extract components from.' }] } },
    output: ['IMAGE', 'AUDIO', 'FLOAT'], output_name: ['images', 'audio', 'fps'],
    display_name: 'Get Video Components', description: 'Extracts all components from a video: frames, audio, and framerate.', python_module: 'comfy_extras.nodes_video', category: 'image/video',
  },
  CreateVideo: {
    input: {
      required: { images: ['IMAGE', { tooltip: 'The images to create a video from.' }], fps: ['FLOAT', { default: 30.0, min: 1.0, max: 120.0, step: 1.0 }] },
      optional: { audio: ['AUDIO', { tooltip: 'The audio to add to the video.' }] },
    },
    output: ['VIDEO'], display_name: 'Create Video', description: 'Create a video from images.', python_module: 'comfy_extras.nodes_video', category: 'image/video',
  },
  PrimitiveString: primitive('String', 'STRING', {}),
  PrimitiveStringMultiline: primitive('String (Multiline)', 'STRING', { multiline: true }),
  PrimitiveInt: primitive('Int', 'INT', { min: I64_MIN, max: I64_MAX, control_after_generate: true }),
  PrimitiveFloat: primitive('Float', 'FLOAT', { min: I64_MIN, max: I64_MAX }),
  PrimitiveBoolean: primitive('Boolean', 'BOOLEAN', {}),
};
