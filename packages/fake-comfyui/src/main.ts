/** `node --import tsx packages/fake-comfyui/src/main.ts --port 8188 --execution-ms 500 [--version 0.3.64] [--checkpoints a.safetensors,b.safetensors] [--preview-method auto|none]` */
import { parseArgs } from 'node:util';
import { startFakeComfyUI } from './fake-comfyui.js';
import type { FakeVersion } from './version.js';

const { values } = parseArgs({
  options: { host: { type: 'string' }, port: { type: 'string' }, 'execution-ms': { type: 'string' }, version: { type: 'string' }, checkpoints: { type: 'string' }, 'preview-method': { type: 'string' } },
});
const fake = await startFakeComfyUI({
  host: values.host ?? '127.0.0.1',
  port: Number(values.port ?? 8188),
  executionMs: Number(values['execution-ms'] ?? 500),
  version: (values.version ?? '0.3.64') as FakeVersion,
  previewMethod: values['preview-method'] === 'none' ? 'none' : 'auto',
  ...(values.checkpoints ? { checkpoints: values.checkpoints.split(',').filter(Boolean) } : {}),
});
process.stdout.write(`listening on ${fake.url}\n`);
const stop = () => void fake.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
