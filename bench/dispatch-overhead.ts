/**
 * Benchmark 4: what runload adds around a GPU's time, against the fake ComfyUI executing
 * instantly. One run in flight at a time: from the create request to the backend receiving the
 * prompt, and from the backend finishing to the poll showing `succeeded`. Then end to end: runs
 * completed per second with 16 concurrent clients (at the default depth and at depth 16), as a
 * ratio of what the fake completes alone when 16 clients drive it directly, the server's CPU per
 * run, and each run's round trip at the default depth. The fake runs in this process, so its
 * timestamps and the client's share one clock.
 * @module
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeComfyUI } from '@runload/fake-comfyui';
import { clientOf, createRun, endToEnd, fakeAlone, now, pollUntilDone, type Client, type Throughput } from './dispatch-client.js';
import { percentile } from './harness.js';
import { EXAMPLE_WORKFLOW, startRunload } from './http-paths.js';
import { onCpuShares, perfAvailable } from './on-cpu-profile.js';
import { COUNTED_CALLS, countSyscalls, syscallCountingAvailable } from './syscall-counts.js';
import { largestProfile, summarizeProfileDir, topFrames } from './profile-summary.js';

const ms = (v: number) => `${v.toFixed(1)} ms`;

/** Targets, each a ratio against a baseline of the same run or a per-run cost the machine's speed moves little. */
const SHARE_DEPTH_1 = 0.35;
const SHARE_DEPTH_16 = 0.6;
const CPU_MS_DEPTH_16 = 1.5;
const ROUND_TRIP_P99_OVER_P50 = 3;

const cores = (t: Throughput) =>
  `the server used ${(t.serverCores * 100).toFixed(0)}% of one core (its threads included), ${t.cpuMsPerRun.toFixed(2)} ms of CPU per run (${byThread(t)}) and sent ${t.statementsPerRun.toFixed(1)} SQL statements per run, polls included (${t.pollsPerRun.toFixed(1)} polls per run)`;

/** Where a run's CPU went by thread: the event loop's own work, and what it handed to other threads. */
const byThread = (t: Throughput) => {
  const { mainUser, mainSystem, otherThreads } = t.cpuMsPerRunByThread;
  return `its main thread ${mainUser.toFixed(2)} ms in JavaScript and Node and ${mainSystem.toFixed(2)} ms in the kernel; its other threads, libuv's pool running the SQLite statements and file calls and V8's garbage collector and compiler, ${otherThreads.toFixed(2)} ms`;
};

const share = (t: Throughput, aloneRate: number) => t.runsPerSecond / aloneRate;
const verdict = (met: boolean) => (met ? 'meets the target' : '**misses the target**');

/**
 * What bounds end-to-end throughput, from this run's own figures: the server's main thread is one
 * core, so it completes at most 1,000 / (ms of CPU per run) runs each second that core is its own.
 */
function throughputBound(depth1: Throughput, depth16: Throughput, aloneRate: number): string {
  const ceiling = (t: Throughput) => (1000 / t.cpuMsPerRun).toFixed(0);
  const needed = 1000 / (SHARE_DEPTH_16 * aloneRate);
  return (
    `- what bounds it: the server's CPU per run, and at depth 1 the chain each backend waits for between two runs. It kept ${(depth1.serverCores * 100).toFixed(0)}% of one core busy at depth 1 and ${(depth16.serverCores * 100).toFixed(0)}% at depth 16, and one core gives at most ${ceiling(depth1)} and ${ceiling(depth16)} runs/s at the CPU each run took (measured ${depth1.runsPerSecond.toFixed(0)} and ${depth16.runsPerSecond.toFixed(0)}). ` +
    `${SHARE_DEPTH_16 * 100}% of the fake alone is ${(SHARE_DEPTH_16 * aloneRate).toFixed(0)} runs/s, which would take under ${needed.toFixed(2)} ms of server CPU per run for everything runload does with a run: its create, its polls, its claim, its prompt, the backend's socket messages (its outcome among them), its output fetched and stored, and its statements. The main thread's own JavaScript at depth 16, ${depth16.cpuMsPerRunByThread.mainUser.toFixed(2)} ms per run, is ${(depth16.cpuMsPerRunByThread.mainUser / needed).toFixed(1)}× that budget by itself`
  );
}

/** Each counted call per completed run, with what it is. */
function callsPerRun(counts: Map<string, number>, runs: number): string {
  return COUNTED_CALLS.filter(([call]) => counts.has(call))
    .map(([call, what]) => `${call} ${((counts.get(call) ?? 0) / Math.max(1, runs)).toFixed(1)} (${what})`)
    .join('; ');
}

export async function benchDispatch(options: { quick: boolean; say: (line: string) => void }): Promise<void> {
  const { say, quick } = options;
  const runs = quick ? 100 : 1000;
  const seconds = quick ? 3 : 10;
  // Each end-to-end window follows the same load for this long, unmeasured (steady state, see endToEnd).
  const warmUpSeconds = quick ? 1 : 5;
  const fake = await startFakeComfyUI({ executionMs: 0 });
  // Every figure is taken without the profiler (it costs the server about a third of its speed).
  const server = await startRunload('dispatch', {}, fake.url);
  const client: Client = await clientOf(server);

  say('## 4. Dispatch overhead and throughput against the fake ComfyUI executing instantly');
  const toBackend: number[] = [];
  const toPoll: number[] = [];
  // What the two latencies hold: the create's own answer, and the poll that saw the run finished.
  const createAnswered: number[] = [];
  const seeingPollSent: number[] = [];
  const seeingPollTook: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const sentAt = now();
    const runId = await createRun(client);
    createAnswered.push(now() - sentAt);
    const { status, seenAt, sentAt: pollSentAt } = await pollUntilDone(client, runId);
    if (status !== 'succeeded') throw new Error(`run ${runId} ended ${status}`);
    const received = fake.prompts.find((p) => p.prompt_id === runId)?.received_at;
    const finished = fake.finishedAt.get(runId);
    if (received === undefined || finished === undefined) throw new Error(`run ${runId}: the fake never ran it`);
    toBackend.push(received - sentAt);
    toPoll.push(seenAt - finished);
    seeingPollSent.push(pollSentAt - finished);
    seeingPollTook.push(seenAt - pollSentAt);
  }
  const line = (name: string, v: number[]) => {
    const met = percentile(v, 50) < 5 && percentile(v, 99) < 50;
    return `- ${name}: p50 ${ms(percentile(v, 50))}, p99 ${ms(percentile(v, 99))} over ${v.length} runs (target p50 < 5 ms, p99 < 50 ms): ${met ? 'meets the target' : '**misses the target**'}`;
  };
  say(line('from the create request to the backend receiving the prompt', toBackend));
  say(`  - of it, the create request's own answer (its run committed): p50 ${ms(percentile(createAnswered, 50))}; the claim and the prompt's request follow the commit`);
  say(line('from the backend finishing to the poll showing `succeeded` (polled back to back)', toPoll));
  say(
    `  - of it, the poll that saw it was sent p50 ${ms(percentile(seeingPollSent, 50))} after the finish (the outcome told on the socket, the output fetched and its record written, the status written with the output revealed, and the poll in flight meanwhile) and took p50 ${ms(percentile(seeingPollTook, 50))} itself`,
  );

  const runload = await endToEnd(client, server.pid, seconds, { warmUpSeconds });
  await server.stop();
  const workflow = JSON.parse(JSON.stringify(fake.prompts.at(-1)?.prompt ?? {})) as Record<string, unknown>;
  // Every client's run in ComfyUI's own queue at once, as when the fake is driven alone.
  const deeper = await startRunload('dispatch-depth-16', { RUNLOAD_DISPATCH_DEPTH: '16' }, fake.url);
  const deeperRun = await endToEnd(await clientOf(deeper), deeper.pid, seconds, { warmUpSeconds });
  await deeper.stop();
  // The same with a workflow of a real one's size: a run's cost should not grow with it.
  const largeDir = mkdtempSync(path.join(os.tmpdir(), 'runload-bench-workflow-'));
  const largeFile = path.join(largeDir, 'large.api.json');
  writeFileSync(largeFile, JSON.stringify(paddedWorkflow(LARGE_WORKFLOW_KIB)));
  const large = await startRunload('dispatch-depth-16-large', { RUNLOAD_DISPATCH_DEPTH: '16' }, fake.url, { workflowFile: largeFile });
  const largeRun = await endToEnd(await clientOf(large), large.pid, seconds, { warmUpSeconds });
  await large.stop();
  rmSync(largeDir, { recursive: true, force: true });
  await fakeAlone(fake, workflow, 16, warmUpSeconds);
  const aloneRate = await fakeAlone(fake, workflow, 16, seconds);
  const shallowShare = share(runload, aloneRate);
  const deepShare = share(deeperRun, aloneRate);
  say(`- the fake alone, driven by 16 clients (the baseline): ${aloneRate.toFixed(0)} runs/s`);
  say(
    `- end to end, 16 clients polling every 5 ms, default depth (one prompt per backend): ${runload.runsPerSecond.toFixed(0)} runs/s — ${shallowShare.toFixed(3)} of the fake alone (target ≥ ${SHARE_DEPTH_1}): ${verdict(shallowShare >= SHARE_DEPTH_1)}; ${cores(runload)}`,
  );
  const { p50, p99 } = runload.roundTrip;
  say(
    `  - round trip of a run at 16 clients (its create request to the poll that saw it succeeded): p50 ${ms(p50)}, p99 ${ms(p99)}, p99 ${(p99 / p50).toFixed(2)}× the p50 (target ≤ ${ROUND_TRIP_P99_OVER_P50}×): ${verdict(p99 <= ROUND_TRIP_P99_OVER_P50 * p50)}; the bench's own event loop (its clients and the fake) was held up to ${ms(runload.benchStallMs)} at once, which delays every run in flight without the server being at fault`,
  );
  say(
    `- the same with \`RUNLOAD_DISPATCH_DEPTH=16\` (every client's run sent to ComfyUI's own queue at once, as when the fake is driven alone): ${deeperRun.runsPerSecond.toFixed(0)} runs/s — ${deepShare.toFixed(3)} of the fake alone (target ≥ ${SHARE_DEPTH_16}): ${verdict(deepShare >= SHARE_DEPTH_16)}; ${cores(deeperRun)}`,
  );
  say(`  - server CPU per run at depth 16, polls included: ${deeperRun.cpuMsPerRun.toFixed(2)} ms (target ≤ ${CPU_MS_DEPTH_16} ms): ${verdict(deeperRun.cpuMsPerRun <= CPU_MS_DEPTH_16)}`);
  say(
    `  - the same with a ${LARGE_WORKFLOW_KIB} KiB workflow (real API-format workflows run from one to tens of KiB; the example is ${(readFileSync(EXAMPLE_WORKFLOW).length / 1024).toFixed(1)} KiB): ${largeRun.runsPerSecond.toFixed(0)} runs/s, ${largeRun.cpuMsPerRun.toFixed(2)} ms of server CPU per run, ${(largeRun.cpuMsPerRun / deeperRun.cpuMsPerRun).toFixed(2)}× the example's`,
  );
  if (shallowShare < SHARE_DEPTH_1 || deepShare < SHARE_DEPTH_16) say(throughputBound(runload, deeperRun, aloneRate));
  if (!quick) {
    // Where the time goes, from a round of its own under the profiler (full runs only).
    const profileDir = mkdtempSync(path.join(os.tmpdir(), 'runload-bench-profile-'));
    const profiled = await startRunload('dispatch-profiled', {}, fake.url, { profileDir });
    await endToEnd(await clientOf(profiled), profiled.pid, seconds / 2);
    await profiled.stop();
    const summary = summarizeProfileDir(profileDir);
    if (summary) say(`- where the server's time goes (end to end at depth 1, CPU profile of a separate round): ${summary}`);
    const largest = largestProfile(profileDir);
    if (largest) say(`  - its top frames (self time; idle is the main thread waiting): ${topFrames(largest, 12).map((f) => `${(f.share * 100).toFixed(1)}% ${f.frame}`).join('; ')}`);
    if (process.env.RUNLOAD_BENCH_KEEP_PROFILE) process.stdout.write(`profile kept in ${profileDir}\n`);
    else rmSync(profileDir, { recursive: true, force: true });
    if (perfAvailable()) {
      // The same at depth 16, counted only while the server's threads run on a CPU.
      const sampled = await startRunload('dispatch-perf', { RUNLOAD_DISPATCH_DEPTH: '16' }, fake.url);
      const sampledClient = await clientOf(sampled);
      const sampledSeconds = seconds / 2 - 1;
      const [shares, calls, sampledRun] = await Promise.all([
        onCpuShares(sampled.pid, sampledSeconds),
        syscallCountingAvailable() ? countSyscalls(sampled.pid, sampledSeconds) : Promise.resolve(null),
        endToEnd(sampledClient, sampled.pid, seconds / 2),
      ]);
      await sampled.stop();
      const line = shares.filter((s) => s.share >= 0.01).map((s) => `${(s.share * 100).toFixed(0)}% ${s.group}`).join('; ');
      say(`- where the server's CPU time goes (end to end at depth 16, every thread, sampled by \`perf\` only while on a CPU): ${line}`);
      if (calls) say(`  - its system calls per run in the same round (counted by \`perf\` on the kernel's tracepoints, every thread): ${callsPerRun(calls, sampledRun.runsPerSecond * sampledSeconds)}`);
    }
  }
  await fake.close();
  say('');
}

/** Size of the large workflow the depth-16 round is repeated with. */
const LARGE_WORKFLOW_KIB = 24;

/** The example workflow grown to about `kib` KiB by its first node's title (`_meta`, which ComfyUI ignores). */
function paddedWorkflow(kib: number): Record<string, { _meta?: { title?: string } }> {
  const workflow = JSON.parse(readFileSync(EXAMPLE_WORKFLOW, 'utf8')) as Record<string, { _meta?: { title?: string } }>;
  const [first] = Object.values(workflow);
  const missing = Math.max(0, kib * 1024 - JSON.stringify(workflow).length);
  if (first) first._meta = { title: `${first._meta?.title ?? ''} ${'x'.repeat(missing)}` };
  return workflow;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchDispatch({ quick: process.argv.includes('--quick'), say: (l) => process.stdout.write(`${l}\n`) });
}
