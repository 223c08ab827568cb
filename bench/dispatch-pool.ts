/**
 * Benchmark 4b: a pool of 8 fake ComfyUIs whose jobs take 200 ms each, at the default depth (one
 * prompt per backend), with 64 clients creating runs and polling them. How much of the window the
 * backends spent executing, and the gap on each backend from one job's end to the next prompt's
 * arrival, against the same fakes fed directly by one client each (which sends the next prompt
 * the moment it sees the previous one finished), measured in the same run.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { clientOf, now } from './dispatch-client.js';
import { PoolClients } from './pool-clients.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import os from 'node:os';
import path from 'node:path';
import { cpuSeconds, percentile } from './harness.js';
import { startRunload } from './http-paths.js';
import { largestProfile, summarizeProfileDir, topFrames } from './profile-summary.js';

const BACKENDS = 8;
const JOB_MS = 200;
const CLIENTS = 64;

/**
 * A blur no run used before: ComfyUI (and the fake) answers a prompt identical to the last one from
 * its cache without executing anything, so every job differs in its blur.
 */
let blurs = 0;
const freshSigma = () => 1 + ((blurs += 1) % 100_000) / 100_000;

export interface PoolFigure {
  /** Time the backends spent executing, as a share of the window on all of them. */
  readonly busy: number;
  /** From a job's end to the next prompt's arrival on the same backend, in ms. */
  readonly gapP50: number;
  readonly gapP99: number;
  readonly jobs: number;
  /** The server's CPU over the window (its threads included) per second of it; absent for the baseline. */
  readonly serverCores?: number;
  /**
   * How late this process's event loop ran (p99 and the longest, in ms): the fakes answer from it,
   * so a late turn here delays a prompt's arrival without the server being at fault.
   */
  readonly benchLag?: { readonly p99: number; readonly max: number };
}

/** Runs `work` with this process's event loop delay measured. */
async function withLagMeasured<T extends PoolFigure>(work: () => Promise<T>): Promise<T> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  try {
    const figure = await work();
    return { ...figure, benchLag: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 } };
  } finally {
    loop.disable();
  }
}

/** The backends' busy share and end-to-next-prompt gaps between `from` and `to` (epoch ms). */
export function poolFigure(fakes: readonly FakeComfyUI[], from: number, to: number): PoolFigure {
  let busyMs = 0;
  let jobs = 0;
  const gaps: number[] = [];
  for (const fake of fakes) {
    let previousEnd: number | null = null;
    for (const prompt of fake.prompts) {
      const end = fake.finishedAt.get(prompt.prompt_id);
      if (end === undefined) continue;
      // A prompt that arrived while another ran started when that one ended.
      const start = previousEnd === null ? prompt.received_at : Math.max(prompt.received_at, previousEnd);
      if (previousEnd !== null && previousEnd >= from && start <= to) gaps.push(Math.max(0, prompt.received_at - previousEnd));
      busyMs += Math.max(0, Math.min(end, to) - Math.max(start, from));
      if (start >= from && end <= to) jobs += 1;
      previousEnd = end;
    }
  }
  return { busy: busyMs / (fakes.length * (to - from)), gapP50: percentile(gaps, 50), gapP99: percentile(gaps, 99), jobs };
}

/** Each fake fed by one client of its own: the next prompt goes as soon as the previous one is seen finished. */
async function fedDirectly(fakes: readonly FakeComfyUI[], workflow: unknown, seconds: number): Promise<PoolFigure> {
  const from = now();
  const until = from + seconds * 1000;
  await Promise.all(
    fakes.map(async (fake) => {
      while (now() < until) {
        const id = randomUUID();
        const prompt = structuredClone(workflow) as Record<string, { inputs: Record<string, unknown> }>;
        if (prompt['2']) prompt['2'].inputs['sigma'] = freshSigma();
        const res = await fetch(`${fake.url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt, prompt_id: id, client_id: 'bench' }) });
        if (res.status !== 200) throw new Error(`fake /prompt: ${res.status} ${await res.text()}`);
        while (!fake.finishedAt.has(id)) await new Promise((r) => setTimeout(r, 1));
      }
    }),
  );
  return poolFigure(fakes, from, until);
}

/** Clients creating runs through runload, each polling its run every `pollMs` until it is done. */
async function throughRunload(fakes: readonly FakeComfyUI[], pollMs: number, seconds: number, options: { profileDir?: string; env?: Record<string, string> } = {}): Promise<PoolFigure> {
  const server = await startRunload('pool', options.env ?? {}, fakes.map((f) => f.url).join(','), options.profileDir ? { profileDir: options.profileDir } : {});
  try {
    const client = await clientOf(server);
    // The clients run in a process of their own, so their work never delays the fakes' answers.
    const clients = await PoolClients.start({ client, clients: CLIENTS, pollMs, firstSigma: freshSigma() });
    try {
      // Three seconds of warm-up (every backend connected, the server's hot paths compiled), then the window.
      await clients.drive(now() + 3000);
      const cpuBefore = cpuSeconds(server.pid);
      const from = now();
      const until = from + seconds * 1000;
      await clients.drive(until);
      const serverCores = (cpuSeconds(server.pid) - cpuBefore) / ((now() - from) / 1000);
      return { ...poolFigure(fakes, from, until), serverCores };
    } finally {
      await clients.stop();
    }
  } finally {
    await server.stop();
  }
}

const describe = (f: PoolFigure) =>
  `backends busy ${(f.busy * 100).toFixed(1)}% of the window, end→next-prompt gap p50 ${f.gapP50.toFixed(1)} ms, p99 ${f.gapP99.toFixed(1)} ms (${f.jobs} jobs)${f.benchLag ? `; the bench's own event loop ran late by p99 ${f.benchLag.p99.toFixed(1)} ms, at most ${f.benchLag.max.toFixed(1)} ms` : ''}`;

export async function benchPool(options: { quick: boolean; say: (line: string) => void }): Promise<void> {
  const { say, quick } = options;
  const seconds = quick ? 3 : 10;
  const fakes = await Promise.all(Array.from({ length: BACKENDS }, () => startFakeComfyUI({ executionMs: JOB_MS, previewMethod: 'none' })));
  try {
    say(`## 4b. A pool of ${BACKENDS} fake ComfyUIs, ${JOB_MS} ms jobs, default depth`);
    // The workflow runload sends, as the baseline's clients send it.
    const slow = await withLagMeasured(() => throughRunload(fakes, 50, seconds));
    const workflow = fakes.flatMap((f) => f.prompts).at(-1)?.prompt ?? {};
    const fast = await withLagMeasured(() => throughRunload(fakes, 5, seconds));
    const notAhead = await withLagMeasured(() => throughRunload(fakes, 50, seconds, { env: { RUNLOAD_DISPATCH_AHEAD: 'false' } }));
    const direct = await withLagMeasured(() => fedDirectly(fakes, workflow, seconds));
    const met = (f: PoolFigure) => f.busy >= 0.97 && f.gapP50 <= 3 && f.gapP99 <= 20;
    const verdict = (f: PoolFigure) => (met(f) ? 'meets the target' : '**misses the target**');
    say(`- baseline: each fake fed directly by one client that sends the next prompt as soon as it sees the previous one finished: ${describe(direct)}`);
    say(`- runload, ${CLIENTS} clients polling every 50 ms: ${describe(slow)} (target busy ≥ 97%, gap p50 ≤ 3 ms, p99 ≤ 20 ms): ${verdict(slow)}`);
    say(`- runload, ${CLIENTS} clients polling every 5 ms: ${describe(fast)}: ${verdict(fast)}`);
    say(`- for comparison, runload with \`RUNLOAD_DISPATCH_AHEAD=false\` (no run claimed ahead: a backend's next run is claimed once it is free, see docs/scheduling.md), ${CLIENTS} clients polling every 50 ms: ${describe(notAhead)}: ${verdict(notAhead)}`);
    if (!met(slow) && !quick) {
      const cores = (f: PoolFigure) => `${((f.serverCores ?? 0) * 100).toFixed(0)}%`;
      say(
        `- what bounds it: the CPU the server gets. It used ${cores(slow)} and ${cores(fast)} of one core (its threads included) in the two rounds, on a machine of 2 cores that the load generator and the fakes share (and whatever else runs there); while its event loop is busy with the polls and creates ahead of it, a backend's end waits there before the next claim and prompt`,
      );
      // Where the time goes, from a round of its own under the profiler.
      const profileDir = mkdtempSync(path.join(os.tmpdir(), 'runload-bench-profile-'));
      await throughRunload(fakes, 50, seconds / 2, { profileDir });
      const summary = summarizeProfileDir(profileDir);
      const largest = largestProfile(profileDir);
      if (summary) say(`- where the server's time goes (polling every 50 ms, CPU profile of a separate round): ${summary}`);
      if (largest) say(`  - its top frames (self time): ${topFrames(largest, 12).map((f) => `${(f.share * 100).toFixed(1)}% ${f.frame}`).join('; ')}`);
      rmSync(profileDir, { recursive: true, force: true });
    }
    say('');
  } finally {
    await Promise.all(fakes.map((f) => f.close()));
  }
}
