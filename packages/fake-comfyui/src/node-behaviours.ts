/**
 * What each node class does in the fake: loaders read the uploaded file, ImageInvert really
 * inverts, VAEDecode paints an image of the latent's size, Save nodes write real files named as
 * ComfyUI names them. Samplers report progress.
 * @module
 */
import { decodePng, encodePng, type RgbaImage } from './png.js';

export interface VideoValue {
  readonly frames: RgbaImage;
  readonly fps: number;
  readonly audio: Buffer | null;
}

/** A Python exception raised by a node: becomes `execution_error`. */
export class NodeException extends Error {
  constructor(message: string, readonly exceptionType = 'Exception') {
    super(message);
  }
}

export interface NodeContext {
  /** The bytes of an input-directory file referenced by a loader widget, or undefined. */
  readFile(reference: string): Buffer | undefined;
  /** Stores an output file and returns its UI entry. */
  save(prefix: string, ext: string, bytes: Buffer, kind: 'output' | 'temp'): { filename: string; subfolder: string; type: string };
}

export interface NodeResult {
  readonly outputs: readonly unknown[];
  readonly ui?: Record<string, unknown>;
}

export interface NodeBehaviour {
  /** Reports `progress` ticks while it runs. */
  readonly progress?: boolean;
  /** The widget naming an input file, checked at validation like ComfyUI's VALIDATE_INPUTS. */
  readonly inputFile?: { readonly widget: string; readonly label: 'image' | 'video' | 'audio' };
  run(inputs: Record<string, unknown>, ctx: NodeContext): NodeResult;
}

const MAX_SIDE = 2048;
const side = (n: unknown, fallback: number) => Math.max(1, Math.min(MAX_SIDE, Math.trunc(Number(n) || fallback)));

function solid(width: number, height: number, paint: (x: number, y: number) => [number, number, number, number]): RgbaImage {
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1) for (let x = 0; x < width; x += 1) rgba.set(paint(x, y), (y * width + x) * 4);
  return { width, height, rgba };
}

function asImage(value: unknown): RgbaImage {
  const v = value as Partial<RgbaImage> | undefined;
  return v?.rgba && v.width && v.height ? (v as RgbaImage) : solid(8, 8, () => [128, 128, 128, 255]);
}

function loadImage(inputs: Record<string, unknown>, ctx: NodeContext): RgbaImage {
  const bytes = ctx.readFile(String(inputs['image']));
  const decoded = bytes ? decodePng(bytes) : null;
  // Only PNGs are decoded here; any other image becomes a grey 64×64 stand-in.
  return decoded ?? solid(64, 64, () => [128, 128, 128, 255]);
}

function scale(image: RgbaImage, width: number, height: number): RgbaImage {
  return solid(width, height, (x, y) => {
    const i = (Math.floor((y * image.height) / height) * image.width + Math.floor((x * image.width) / width)) * 4;
    return [image.rgba[i] ?? 0, image.rgba[i + 1] ?? 0, image.rgba[i + 2] ?? 0, image.rgba[i + 3] ?? 255];
  });
}

function saveNode(key: 'images' | 'audio', kind: 'output' | 'temp', encode: (inputs: Record<string, unknown>) => { ext: string; bytes: Buffer }, animated = false): NodeBehaviour {
  return {
    run: (inputs, ctx) => {
      const { ext, bytes } = encode(inputs);
      const prefix = kind === 'temp' ? `ComfyUI_temp_${Math.random().toString(36).slice(2, 7)}` : String(inputs['filename_prefix'] ?? 'ComfyUI');
      const ui: Record<string, unknown> = { [key]: [ctx.save(prefix, ext, bytes, kind)] };
      if (animated) ui['animated'] = [true];
      return { outputs: [], ui };
    },
  };
}

/** A FLAC stream holding only STREAMINFO (44.1 kHz, stereo, 16-bit, no samples): valid, silent. */
function emptyFlac(): Buffer {
  const info = Buffer.alloc(34);
  info.writeUInt16BE(4096, 0);
  info.writeUInt16BE(4096, 2);
  info.writeUIntBE((44100 << 4) | (1 << 1), 10, 3);
  info[13] = 0xf0;
  return Buffer.concat([Buffer.from('fLaC'), Buffer.from([0x80, 0, 0, 34]), info]);
}

/** An MP4 `ftyp` box followed by the first frame as PNG inside a `free` box: recognisable, not playable. */
function fakeMp4(video: VideoValue): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isommp41')]);
  const png = encodePng(video.frames);
  const free = Buffer.alloc(8);
  free.writeUInt32BE(8 + png.length, 0);
  free.write('free', 4, 'latin1');
  return Buffer.concat([ftyp, free, png]);
}

const passThrough = (value: unknown): NodeBehaviour => ({ run: () => ({ outputs: [value] }) });

export const NODE_BEHAVIOURS: Record<string, NodeBehaviour> = {
  LoadImage: {
    inputFile: { widget: 'image', label: 'image' },
    run: (inputs, ctx) => {
      const image = loadImage(inputs, ctx);
      return { outputs: [image, { mask: true, width: image.width, height: image.height }] };
    },
  },
  LoadImageMask: { inputFile: { widget: 'image', label: 'image' }, run: (inputs, ctx) => ({ outputs: [{ mask: true, ...loadImage(inputs, ctx) }] }) },
  LoadVideo: {
    inputFile: { widget: 'file', label: 'video' },
    // Video is not decoded: every clip becomes 64×64 frames at 24 fps without audio.
    run: () => ({ outputs: [{ frames: solid(64, 64, (x) => [x * 4, 0, 255 - x * 4, 255]), fps: 24, audio: null } satisfies VideoValue] }),
  },
  LoadAudio: { inputFile: { widget: 'audio', label: 'audio' }, run: (inputs, ctx) => ({ outputs: [{ audio: ctx.readFile(String(inputs['audio'])) ?? null }] }) },
  ImageInvert: {
    run: (inputs) => {
      const image = asImage(inputs['image']);
      const rgba = Buffer.from(image.rgba);
      for (let i = 0; i < rgba.length; i += 4) for (let c = 0; c < 3; c += 1) rgba[i + c] = 255 - (rgba[i + c] as number);
      return { outputs: [{ width: image.width, height: image.height, rgba }] };
    },
  },
  ImageBlur: { run: (inputs) => ({ outputs: [asImage(inputs['image'])] }) },
  ImageScale: {
    run: (inputs) => {
      const image = asImage(inputs['image']);
      const w = Number(inputs['width']);
      const h = Number(inputs['height']);
      // ComfyUI keeps the aspect ratio when one side is 0, and the size when both are.
      const width = side(w || (h ? (image.width * h) / image.height : image.width), image.width);
      const height = side(h || (w ? (image.height * w) / image.width : image.height), image.height);
      return { outputs: [scale(image, width, height)] };
    },
  },
  CheckpointLoaderSimple: { run: () => ({ outputs: [{ model: true }, { clip: true }, { vae: true }] }) },
  CLIPTextEncode: { run: (inputs) => ({ outputs: [{ conditioning: String(inputs['text']) }] }) },
  EmptyLatentImage: { run: (inputs) => ({ outputs: [{ latent: true, width: side(inputs['width'], 512), height: side(inputs['height'], 512) }] }) },
  KSampler: { progress: true, run: (inputs) => ({ outputs: [{ ...(inputs['latent_image'] as object), seed: inputs['seed'] }] }) },
  VAEDecode: {
    run: (inputs) => {
      const latent = inputs['samples'] as { width?: number; height?: number; seed?: number } | undefined;
      const tint = Number(latent?.seed ?? 0) % 256;
      const image = solid(side(latent?.width, 512), side(latent?.height, 512), (x, y) => [(x + tint) & 255, y & 255, (x ^ y) & 255, 255]);
      return { outputs: [image] };
    },
  },
  GetVideoComponents: {
    run: (inputs) => {
      const video = inputs['video'] as VideoValue | undefined;
      return { outputs: [video?.frames ?? asImage(undefined), { audio: video?.audio ?? null }, video?.fps ?? 24] };
    },
  },
  CreateVideo: {
    run: (inputs) => ({ outputs: [{ frames: asImage(inputs['images']), fps: Number(inputs['fps'] ?? 30), audio: (inputs['audio'] as { audio?: Buffer } | undefined)?.audio ?? null }] }),
  },
  SaveImage: saveNode('images', 'output', (inputs) => ({ ext: 'png', bytes: encodePng(asImage(inputs['images'])) })),
  PreviewImage: saveNode('images', 'temp', (inputs) => ({ ext: 'png', bytes: encodePng(asImage(inputs['images'])) })),
  SaveVideo: saveNode('images', 'output', (inputs) => ({ ext: 'mp4', bytes: fakeMp4((inputs['video'] as VideoValue | undefined) ?? { frames: asImage(undefined), fps: 24, audio: null }) }), true),
  SaveAudio: saveNode('audio', 'output', () => ({ ext: 'flac', bytes: emptyFlac() })),
  PrimitiveString: { run: (inputs) => ({ outputs: [inputs['value']] }) },
  PrimitiveStringMultiline: { run: (inputs) => ({ outputs: [inputs['value']] }) },
  PrimitiveInt: { run: (inputs) => ({ outputs: [inputs['value']] }) },
  PrimitiveFloat: { run: (inputs) => ({ outputs: [inputs['value']] }) },
  PrimitiveBoolean: { run: (inputs) => ({ outputs: [inputs['value']] }) },
};

/** Classes given through the `objectInfo` option run as no-ops with empty outputs. */
export const GENERIC_BEHAVIOUR = passThrough(null);
