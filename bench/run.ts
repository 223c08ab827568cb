/**
 * `pnpm bench`: the hot paths of the real server, each against a baseline measured in the same
 * run on the same machine, so the ratios hold on a noisy machine. Writes BENCHMARKS.md.
 * `pnpm bench --quick` runs short rounds (a smoke test) and writes nothing.
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeComfyUI } from '@runload/fake-comfyui';
import { buildServer, machine, ROOT } from './harness.js';
import { benchDispatch } from './dispatch-overhead.js';
import { benchScale } from './data-scale.js';
import { benchHttpPaths } from './http-paths.js';
import { benchIntegrations } from './integrations.js';
import { benchS3Upload } from './s3-upload.js';
import { benchPreviews } from './previews.js';

const quick = process.argv.includes('--quick');
/**
 * `--only=<section>` runs one section alone (`http`, `dispatch`, `scale`, `integrations`,
 * `s3-upload`, `previews`) and, in a full run, replaces that section's blocks in BENCHMARKS.md.
 */
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? null;
const lines: string[] = [];
const say = (line: string) => {
  process.stdout.write(`${line}\n`);
  lines.push(line);
};

type Section = (fakeUrl: string) => Promise<void>;
const SECTIONS: Record<string, Section> = {
  http: (fakeUrl) => benchHttpPaths({ quick, say, fakeUrl }),
  dispatch: () => benchDispatch({ quick, say }),
  scale: (fakeUrl) => benchScale({ quick, say, fakeUrl }),
  integrations: () => benchIntegrations({ quick, say }),
  's3-upload': (fakeUrl) => benchS3Upload({ quick, say, fakeUrl }),
  previews: () => benchPreviews({ quick, say }),
};

/** Replaces in `current` each `## ` block of `fresh` that has the same heading (appended when new). */
function replaceBlocks(current: string, fresh: string): string {
  const blocks = (text: string) => text.split(/\n(?=## )/);
  const next = blocks(current);
  for (const block of blocks(fresh).filter((b) => b.startsWith('## '))) {
    const heading = block.slice(0, block.indexOf('\n'));
    const at = next.findIndex((b) => b.slice(0, b.indexOf('\n')) === heading);
    if (at < 0) next.push(block);
    else next[at] = block;
  }
  return `${next.map((b) => b.trimEnd()).join('\n\n')}\n`;
}

// Every server runs compiled, as a production install runs it.
buildServer();

if (only !== null) {
  const section = SECTIONS[only];
  if (!section) {
    process.stderr.write(`unknown section ${only}; one of ${Object.keys(SECTIONS).join(', ')}\n`);
    process.exit(2);
  }
  const fake = await startFakeComfyUI({ executionMs: 0 });
  fake.pause();
  await section(fake.url);
  await fake.close();
  if (!quick) {
    const file = path.join(ROOT, 'BENCHMARKS.md');
    // A section run alone says when, under its heading: the file's header dates the full run.
    const stamped = lines.join('\n').replace(/^(## .*)$/gm, `$1\n_Run alone (\`--only=${only}\`) ${new Date().toISOString()}, on the same machine._`);
    writeFileSync(file, replaceBlocks(readFileSync(file, 'utf8'), stamped));
  }
  process.exit(0);
}

say('# Benchmarks');
say('');
say(`Machine: ${machine()}. Run ${new Date().toISOString()}${quick ? ' (quick mode: short rounds)' : ''}.`);
say('Written by `pnpm bench`. Load: autocannon in its own process, 64 connections, 10 s per round; the server in its own process, compiled (`pnpm build`, as a production install runs it), with every limit raised (`RUNLOAD_LIMITS_FILE`), against the fake ComfyUI. Baseline: a bare node:http server answering the same bytes, measured in the same run.');
say('');

const fake = await startFakeComfyUI({ executionMs: 0 });
fake.pause();
for (const section of Object.values(SECTIONS)) await section(fake.url);
await fake.close();

if (!quick) writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), `${lines.join('\n')}\n`);
