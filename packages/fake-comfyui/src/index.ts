export { FakeComfyUI, startFakeComfyUI, type FakeComfyUIOptions, type AcceptedPrompt } from './fake-comfyui.js';
export type { FakeVersion } from './version.js';
export { makePng, pngSize } from './png.js';
