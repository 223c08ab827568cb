/**
 * `pnpm bench`: the hot paths of the real server, each against a baseline measured in the same
 * run on the same machine, so the ratios hold on a noisy machine. Writes BENCHMARKS.md unless
 * told not to; `pnpm bench --help` lists the options.
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeComfyUI } from '@runload/fake-comfyui';
import { buildServer, machine, ROOT } from './harness.js';
import { benchDispatch } from './dispatch-overhead.js';
import { benchPool } from './dispatch-pool.js';
import { benchScale } from './data-scale.js';
import { benchHttpPaths } from './http-paths.js';
import { benchIntegrations } from './integrations.js';
import { benchS3Upload } from './s3-upload.js';
import { benchPreviews } from './previews.js';

const SECTION_NAMES = ['http', 'dispatch', 'pool', 'scale', 'integrations', 's3-upload', 'previews'] as const;

const USAGE = `usage: pnpm bench [options]

Measures runload's hot paths (the compiled server in its own process, against the fake ComfyUI),
each against a baseline taken in the same run. A full run takes many minutes and rewrites
BENCHMARKS.md; docs/benchmarks.md says what each section measures and what bounds it.

options:
  --only SECTION   run one section: ${SECTION_NAMES.join(', ')}; in a writing run it replaces
                   only that section's blocks in BENCHMARKS.md
  --quick          short rounds (a smoke test); writes nothing
  --no-write       full rounds, printed only; BENCHMARKS.md is left as it is
  -h, --help       this text

environment:
  RUNLOAD_BENCH_PROFILE=DIR     keep the V8 CPU profile of every server the bench starts
  RUNLOAD_BENCH_KEEP_PROFILE=1  keep the dispatch section's profile directory (its path is printed)
  RUNLOAD_BENCH_PG_URL=URL      the PostgreSQL of the scale section (default postgres://postgres@127.0.0.1:5432/test)`;

function options() {
  try {
    return parseArgs({
      strict: true,
      options: { help: { type: 'boolean', short: 'h' }, quick: { type: 'boolean' }, only: { type: 'string' }, 'no-write': { type: 'boolean' } },
    }).values;
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n${USAGE}\n`);
    return process.exit(2);
  }
}

const args = options();
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const quick = args.quick === true;
const write = !quick && args['no-write'] !== true;
/** One section alone; a writing run replaces that section's blocks in BENCHMARKS.md. */
const only = args.only ?? null;
if (only !== null && !(SECTION_NAMES as readonly string[]).includes(only)) {
  process.stderr.write(`bench: unknown section ${only}; one of ${SECTION_NAMES.join(', ')}\n`);
  process.exit(2);
}
const lines: string[] = [];
const say = (line: string) => {
  process.stdout.write(`${line}\n`);
  lines.push(line);
};

type Section = (fakeUrl: string) => Promise<void>;
const SECTIONS: Record<(typeof SECTION_NAMES)[number], Section> = {
  http: (fakeUrl) => benchHttpPaths({ quick, say, fakeUrl }),
  dispatch: () => benchDispatch({ quick, say }),
  pool: () => benchPool({ quick, say }),
  scale: (fakeUrl) => benchScale({ quick, say, fakeUrl }),
  integrations: () => benchIntegrations({ quick, say }),
  's3-upload': (fakeUrl) => benchS3Upload({ quick, say, fakeUrl }),
  previews: () => benchPreviews({ quick, say }),
};

/** Replaces in `current` each `## ` block of `fresh` that has the same heading (a new one is placed by its number). */
function replaceBlocks(current: string, fresh: string): string {
  const blocks = (text: string) => text.split(/\n(?=## )/);
  const next = blocks(current);
  for (const block of blocks(fresh).filter((b) => b.startsWith('## '))) {
    const heading = block.slice(0, block.indexOf('\n'));
    const at = next.findIndex((b) => b.slice(0, b.indexOf('\n')) === heading);
    if (at >= 0) {
      next[at] = block;
      continue;
    }
    // A new section goes after the last one numbered before it (4b after 4), else at the end.
    const number = (b: string) => /^## (\d+[a-z]?)\./.exec(b)?.[1] ?? null;
    const mine = number(block);
    const before = mine === null ? -1 : next.findLastIndex((b) => number(b) !== null && (number(b) as string).localeCompare(mine, 'en', { numeric: true }) < 0);
    next.splice(before < 0 ? next.length : before + 1, 0, block);
  }
  return `${next.map((b) => b.trimEnd()).join('\n\n')}\n`;
}

// Every server runs compiled, as a production install runs it.
buildServer();

if (only !== null) {
  const section = SECTIONS[only as keyof typeof SECTIONS];
  const fake = await startFakeComfyUI({ executionMs: 0 });
  fake.pause();
  await section(fake.url);
  await fake.close();
  if (write) {
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

if (write) writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), `${lines.join('\n')}\n`);
