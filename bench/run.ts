/**
 * `pnpm bench`: the hot paths of the real server, each against a baseline measured in the same
 * run on the same machine, so the ratios hold on a noisy machine. Writes BENCHMARKS.md.
 * `pnpm bench --quick` runs short rounds (a smoke test) and writes nothing.
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeComfyUI } from '@runload/fake-comfyui';
import { machine, ROOT } from './harness.js';
import { benchDispatch } from './dispatch-overhead.js';
import { benchScale } from './data-scale.js';
import { benchHttpPaths } from './http-paths.js';
import { benchIntegrations } from './integrations.js';
import { benchS3Upload } from './s3-upload.js';

const quick = process.argv.includes('--quick');
/** `--only=s3-upload` runs that section alone and replaces it in BENCHMARKS.md. */
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? null;
const lines: string[] = [];
const say = (line: string) => {
  process.stdout.write(`${line}\n`);
  lines.push(line);
};

if (only === 's3-upload') {
  const fake = await startFakeComfyUI({ executionMs: 0 });
  fake.pause();
  await benchS3Upload({ quick, say, fakeUrl: fake.url });
  await fake.close();
  if (!quick) {
    const file = path.join(ROOT, 'BENCHMARKS.md');
    const current = readFileSync(file, 'utf8');
    const section = `${lines.join('\n')}\n`;
    const start = current.indexOf('## 6. Upload of a');
    const end = start < 0 ? -1 : current.indexOf('\n## ', start + 1);
    const kept = start < 0 ? `${current.trimEnd()}\n\n` : current.slice(0, start);
    writeFileSync(file, `${kept}${section}${end < 0 ? '' : current.slice(end + 1)}`);
  }
  process.exit(0);
}

say('# Benchmarks');
say('');
say(`Machine: ${machine()}. Run ${new Date().toISOString()}${quick ? ' (quick mode: short rounds)' : ''}.`);
say('Written by `pnpm bench`. Load: autocannon in its own process, 64 connections, 10 s per round; the server in its own process with every limit raised (`RUNLOAD_LIMITS_FILE`), against the fake ComfyUI. Baseline: a bare node:http server answering the same bytes, measured in the same run.');
say('');

const fake = await startFakeComfyUI({ executionMs: 0 });
fake.pause();
await benchHttpPaths({ quick, say, fakeUrl: fake.url });
await benchDispatch({ quick, say });
await benchScale({ quick, say, fakeUrl: fake.url });
await benchIntegrations({ quick, say });
await benchS3Upload({ quick, say, fakeUrl: fake.url });
await fake.close();

if (!quick) writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), `${lines.join('\n')}\n`);
