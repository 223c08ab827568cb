/**
 * The node classes the fake can execute, with `/object_info` entries shaped as ComfyUI's and a
 * small behaviour each: loaders need an uploaded file, samplers report progress, output nodes
 * write real files.
 * @module
 */

export type InputSpec = readonly [unknown, Record<string, unknown>?];

export interface FakeNode {
  readonly required: Record<string, InputSpec>;
  readonly optional?: Record<string, InputSpec>;
  readonly output: readonly string[];
  readonly outputNode?: boolean;
  /** Reports `progress` steps while it runs (samplers). */
  readonly progress?: boolean;
  /** The widget naming an input file, checked like ComfyUI's VALIDATE_INPUTS. */
  readonly inputFile?: { readonly widget: string; readonly label: 'image' | 'video' | 'audio' };
  /** What an output node saves: media key, extension, and the default prefix. */
  readonly saves?: { readonly key: 'images' | 'audio'; readonly ext: string; readonly animated?: boolean; readonly temp?: boolean };
}

const image: InputSpec = ['IMAGE'];
const files = (flag: string): InputSpec => [[], { [flag]: true }];
const int = (d: number, min: number, max: number, step = 1): InputSpec => ['INT', { default: d, min, max, step }];
const float = (d: number, min: number, max: number, step: number): InputSpec => ['FLOAT', { default: d, min, max, step }];

export const NODES: Record<string, FakeNode> = {
  LoadImage: { required: { image: files('image_upload') }, output: ['IMAGE', 'MASK'], inputFile: { widget: 'image', label: 'image' } },
  LoadImageMask: {
    required: { image: files('image_upload'), channel: [['alpha', 'red', 'green', 'blue']] },
    output: ['MASK'],
    inputFile: { widget: 'image', label: 'image' },
  },
  LoadVideo: { required: { file: ['COMBO', { options: [], multiselect: false, video_upload: true }] }, output: ['VIDEO'], inputFile: { widget: 'file', label: 'video' } },
  LoadAudio: { required: { audio: files('audio_upload') }, output: ['AUDIO'], inputFile: { widget: 'audio', label: 'audio' } },
  ImageInvert: { required: { image }, output: ['IMAGE'] },
  ImageBlur: { required: { image, blur_radius: int(1, 1, 31), sigma: float(1, 0.1, 10, 0.1) }, output: ['IMAGE'] },
  ImageScale: {
    required: { image, upscale_method: [['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos']], width: int(512, 0, 16384), height: int(512, 0, 16384), crop: [['disabled', 'center']] },
    output: ['IMAGE'],
  },
  CheckpointLoaderSimple: { required: { ckpt_name: [['v1-5-pruned-emaonly.safetensors']] }, output: ['MODEL', 'CLIP', 'VAE'] },
  CLIPTextEncode: { required: { text: ['STRING', { multiline: true, dynamicPrompts: true }], clip: ['CLIP'] }, output: ['CONDITIONING'] },
  EmptyLatentImage: { required: { width: int(512, 16, 16384, 8), height: int(512, 16, 16384, 8), batch_size: int(1, 1, 4096) }, output: ['LATENT'] },
  KSampler: {
    required: {
      model: ['MODEL'],
      seed: ['INT', { default: 0, min: 0, max: 0xffffffffffffffff, control_after_generate: true }],
      steps: int(20, 1, 10000),
      cfg: ['FLOAT', { default: 8, min: 0, max: 100, step: 0.1, round: 0.01 }],
      sampler_name: [['euler', 'euler_ancestral', 'heun', 'dpmpp_2m', 'ddim']],
      scheduler: [['simple', 'karras', 'exponential', 'normal']],
      positive: ['CONDITIONING'],
      negative: ['CONDITIONING'],
      latent_image: ['LATENT'],
      denoise: float(1, 0, 1, 0.01),
    },
    output: ['LATENT'],
    progress: true,
  },
  VAEDecode: { required: { samples: ['LATENT'], vae: ['VAE'] }, output: ['IMAGE'] },
  GetVideoComponents: { required: { video: ['VIDEO'] }, output: ['IMAGE', 'AUDIO', 'FLOAT'] },
  CreateVideo: { required: { images: image, fps: float(30, 1, 120, 1) }, optional: { audio: ['AUDIO'] }, output: ['VIDEO'] },
  SaveImage: { required: { images: image, filename_prefix: ['STRING', { default: 'ComfyUI' }] }, output: [], outputNode: true, saves: { key: 'images', ext: 'png' } },
  PreviewImage: { required: { images: image }, output: [], outputNode: true, saves: { key: 'images', ext: 'png', temp: true } },
  SaveVideo: {
    required: { video: ['VIDEO'], filename_prefix: ['STRING', { default: 'video/ComfyUI' }], format: ['COMBO', { options: ['auto', 'mp4'] }], codec: ['COMBO', { options: ['auto', 'h264'] }] },
    output: [],
    outputNode: true,
    saves: { key: 'images', ext: 'mp4', animated: true },
  },
  SaveAudio: { required: { audio: ['AUDIO'], filename_prefix: ['STRING', { default: 'audio/ComfyUI' }] }, output: [], outputNode: true, saves: { key: 'audio', ext: 'flac' } },
  PrimitiveInt: { required: { value: ['INT', { min: -(2 ** 63), max: 2 ** 63 - 1 }] }, output: ['INT'] },
  PrimitiveString: { required: { value: ['STRING', {}] }, output: ['STRING'] },
};

/** `/object_info` entry of a class, as ComfyUI serialises it. */
export function objectInfo(name: string, node: FakeNode): Record<string, unknown> {
  return {
    input: { required: node.required, ...(node.optional ? { optional: node.optional } : {}) },
    input_order: { required: Object.keys(node.required), ...(node.optional ? { optional: Object.keys(node.optional) } : {}) },
    output: node.output,
    output_is_list: node.output.map(() => false),
    output_name: node.output,
    name,
    display_name: name,
    description: '',
    python_module: 'nodes',
    category: node.outputNode ? 'image' : 'fake',
    output_node: node.outputNode === true,
  };
}
