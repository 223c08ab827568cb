/**
 * `pnpm demo`: a fake ComfyUI and a runload server on a fresh data directory, an account, a key
 * and an app; then one run end to end, and the curl commands to do it yourself.
 * `pnpm demo --once` exits after the run (used as a smoke test), without the commands.
 * @module
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeComfyUI } from '@runload/fake-comfyui';
import { makePng } from '@runload/fake-comfyui';
import { loadConfig } from './config.js';
import { openRuntime } from './runtime.js';

const once = process.argv.includes('--once');
const root = path.resolve(process.cwd(), 'data-demo');
rmSync(root, { recursive: true, force: true });
mkdirSync(root, { recursive: true });

const fake = await startFakeComfyUI({ port: 0, executionMs: 800, progressSteps: 4 });
const config = { ...loadConfig({ ...process.env, RUNLOAD_DATA_DIR: root, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_PORT: process.env['RUNLOAD_PORT'] ?? '0' }), host: '127.0.0.1' };
const runtime = await openRuntime(config, { dispatch: true });
const server = await runtime.listen();

const account = await runtime.api.accounts.create('Demo user', 'plus');
const { apiKey } = await runtime.api.apiKeys.create(account.id);
const workflow = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../examples/workflows/image-blur.api.json'), 'utf8')) as unknown;
const app = await runtime.api.apps.publish({ name: 'Blur and invert', workflow });
const imagePath = path.join(root, 'photo.png');
writeFileSync(imagePath, makePng(64, 64, (x, y) => [x * 4, y * 4, 160, 255]));

const base = server.url;
const auth = { authorization: `Bearer ${apiKey}` };
const say = (line = '') => process.stdout.write(`${line}\n`);

say(`fake ComfyUI: ${fake.url}`);
say(`runload:      ${base}   (data in ${root})`);
say();
say('1. upload an image');
const form = new FormData();
form.append('file', new Blob([readFileSync(imagePath)]), 'photo.png');
const asset = (await (await fetch(`${base}/api/v1/assets`, { method: 'POST', headers: auth, body: form })).json()) as { asset_id: string };
say(`   → ${JSON.stringify(asset)}`);
say('2. run the app');
const created = (await (
  await fetch(`${base}/api/v1/apps/${app.id}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ inputs: { '1:image': asset.asset_id, '2:blur_radius': 8 } }) })
).json()) as { run_id: string; poll_url: string };
say(`   → ${JSON.stringify(created)}`);
say('3. poll');
let run: { status: string; outputs: { url: string; filename: string }[]; progress: unknown; metrics: unknown } = { status: 'queued', outputs: [], progress: null, metrics: null };
let last = '';
while (!['succeeded', 'failed', 'canceled', 'expired'].includes(run.status)) {
  await new Promise((r) => setTimeout(r, 100));
  run = (await (await fetch(`${base}${created.poll_url}`, { headers: auth })).json()) as typeof run;
  const line = `   status=${run.status} progress=${JSON.stringify(run.progress)}`;
  if (line !== last) say((last = line));
}
say(`   metrics=${JSON.stringify(run.metrics)}`);
const output = run.outputs[0];
if (run.status !== 'succeeded' || !output) {
  say(`the run ended ${run.status}`);
  process.exitCode = 1;
} else {
  const bytes = Buffer.from(await (await fetch(`${base}${output.url}`, { headers: auth })).arrayBuffer());
  const saved = path.join(root, `output-${output.filename}`);
  writeFileSync(saved, bytes);
  say(`4. downloaded ${output.filename} (${bytes.length} bytes, PNG signature ${bytes.subarray(1, 4).toString('latin1') === 'PNG' ? 'ok' : 'missing'}) to ${saved}`);
}
const stop = async () => {
  await runtime.close();
  await fake.close();
};
if (once) {
  await stop();
} else {
  // The commands only help while the server is still there to answer them.
  say();
  say('Now by hand:');
  say(`  export KEY=${apiKey}`);
  say(`  curl -s -H "Authorization: Bearer $KEY" -F file=@${imagePath} ${base}/api/v1/assets`);
  say(`  curl -s -H "Authorization: Bearer $KEY" ${base}/api/v1/apps/${app.id}`);
  say(`  curl -s -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"inputs":{"1:image":"<asset_id>","2:blur_radius":4}}' ${base}/api/v1/apps/${app.id}`);
  say(`  curl -s -H "Authorization: Bearer $KEY" ${base}/api/v1/runs/<run_id>`);
  say(`  curl -s -H "Authorization: Bearer $KEY" -o out.png ${base}/api/v1/assets/<output asset_id>/content`);
  say();
  say('Serving until Ctrl-C.');
  process.on('SIGINT', () => void stop().then(() => process.exit(0)));
  process.on('SIGTERM', () => void stop().then(() => process.exit(0)));
}
