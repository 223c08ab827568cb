/**
 * `pnpm bench`: the hot paths of the real server, each against a baseline measured in the same
 * run on the same machine, so the ratios hold on a noisy machine. Writes BENCHMARKS.md.
 * `pnpm bench --quick` runs short rounds (a smoke test) and writes nothing.
 * @module
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeComfyUI } from '@runload/fake-comfyui';
import { machine, ROOT } from './harness.js';
import { benchDispatch } from './dispatch-overhead.js';
import { benchScale } from './data-scale.js';
import { benchHttpPaths } from './http-paths.js';
import { benchIntegrations } from './integrations.js';

const quick = process.argv.includes('--quick');
const lines: string[] = [];
const say = (line: string) => {
  process.stdout.write(`${line}\n`);
  lines.push(line);
};

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
await fake.close();

if (!quick) writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), `${lines.join('\n')}\n`);
