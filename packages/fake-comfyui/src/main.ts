/**
 * `pnpm fake-comfyui [--port 8188] [--host 127.0.0.1] [--execution-ms 500] [--version 0.3.64]
 * [--checkpoints a.safetensors,b.safetensors] [--preview-method auto|none] [--paused]
 * [--view-delay-ms N] [--view-drip-ms N] [--log-requests]`: the fake ComfyUI as a process of its own. A
 * failure to start (a taken port, a bad option) is one line on stderr and exit code 1 (2 for
 * usage), never a stack.
 * @module
 */
import { parseArgs } from 'node:util';
import { startFakeComfyUI } from './fake-comfyui.js';
import type { FakeVersion } from './version.js';

const USAGE = `usage: pnpm fake-comfyui [options]

A fake ComfyUI (the one runload's tests use): it accepts prompts, "executes" them for a while and
writes a small PNG for each SaveImage node. No GPU, no models.

options:
  --port N             port to listen on (default 8188; 0 picks a free one)
  --host HOST          address to listen on (default 127.0.0.1)
  --execution-ms N     how long each prompt "runs" (default 500)
  --version V          the ComfyUI it imitates: 0.3.64 (default), 2026 or legacy
  --checkpoints LIST   comma-separated checkpoint names its loaders offer
  --preview-method M   auto (default: samplers send a preview at each step) or none
  --paused             accept prompts but run none (they stay queued)
  --view-delay-ms N    hold each /view answer this long
  --view-drip-ms N     send each /view answer one byte every N ms
  --log-requests       print "request METHOD /path" on stdout as each request arrives
  -h, --help           this text

It prints "listening on http://HOST:PORT" once it listens. Point runload at it with
RUNLOAD_COMFYUI_URLS (pnpm start looks at http://127.0.0.1:8188 by default).`;

const VERSIONS: readonly FakeVersion[] = ['0.3.64', '2026', 'legacy'];

function fail(message: string, code: number): never {
  process.stderr.write(`fake-comfyui: ${message}\n`);
  process.exit(code);
}

function parseOptions() {
  try {
    return parseArgs({
      strict: true,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        'execution-ms': { type: 'string' },
        version: { type: 'string' },
        checkpoints: { type: 'string' },
        'preview-method': { type: 'string' },
        paused: { type: 'boolean' },
        'view-delay-ms': { type: 'string' },
        'view-drip-ms': { type: 'string' },
        'log-requests': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    return fail(`${(error as Error).message} (--help lists the options)`, 2);
  }
}

function whole(name: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > max) fail(`--${name} must be a whole number from 0 to ${max}, not ${JSON.stringify(text)}`, 2);
  return value;
}

const values = parseOptions();
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const host = values.host ?? '127.0.0.1';
const port = whole('port', values.port, 8188, 65535);
const version = (values.version ?? '0.3.64') as FakeVersion;
const previewMethod = values['preview-method'] ?? 'auto';
if (previewMethod !== 'auto' && previewMethod !== 'none') fail(`--preview-method must be auto or none, not ${JSON.stringify(previewMethod)}`, 2);
if (!VERSIONS.includes(version)) fail(`--version must be one of ${VERSIONS.join(', ')}, not ${JSON.stringify(values.version)}`, 2);

const fake = await startFakeComfyUI({
  host,
  port,
  executionMs: whole('execution-ms', values['execution-ms'], 500, 3_600_000),
  version,
  previewMethod,
  ...(values.checkpoints ? { checkpoints: values.checkpoints.split(',').filter(Boolean) } : {}),
  ...(values['log-requests'] ? { onRequest: (route: string) => process.stdout.write(`request ${route}\n`) } : {}),
}).catch((error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE') return fail(`port ${port} on ${host} is taken (EADDRINUSE); choose another with --port N (0 picks a free one)`, 1);
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') return fail(`cannot listen on ${host} (${error.code}); choose another with --host`, 1);
  return fail(`cannot start: ${error.message}${error.code ? ` (${error.code})` : ''}`, 1);
});
if (values.paused) fake.pause();
fake.setDelays({ view: whole('view-delay-ms', values['view-delay-ms'], 0, 3_600_000) });
fake.setViewDrip(whole('view-drip-ms', values['view-drip-ms'], 0, 3_600_000));
process.stdout.write(`listening on ${fake.url}\n`);
const stop = () => void fake.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
