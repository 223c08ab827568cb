export { FakeComfyUI, startFakeComfyUI, type FakeComfyUIOptions, type AcceptedPrompt } from './fake-comfyui.js';
export type { Failure } from './fake-worker.js';
export type { FakeVersion } from './version.js';
export { makePng, pngSize, decodePng, type RgbaImage } from './png.js';
export { greyJpeg } from './jpeg.js';
