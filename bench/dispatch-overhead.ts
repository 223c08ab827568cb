/**
 * Benchmark 4: what runload adds around a GPU's time, against the fake ComfyUI executing
 * instantly. One run in flight at a time: from the create request to the backend receiving the
 * prompt, and from the backend finishing to the poll showing `succeeded`. Then end to end: runs
 * completed per second with 16 concurrent clients, against what the fake completes alone when 16
 * clients drive it directly. The fake runs in this process, so its timestamps and the client's
 * share one clock.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makePng, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { cpuSeconds, percentile } from './harness.js';
import { startRunload, type RunloadServer } from './http-paths.js';
import { onCpuShares, perfAvailable } from './on-cpu-profile.js';
import { summarizeProfileDir } from './profile-summary.js';

const now = () => performance.timeOrigin + performance.now();
const TERMINAL = new Set(['succeeded', 'failed', 'canceled', 'expired']);

const ms = (v: number) => `${v.toFixed(1)} ms`;

interface Client {
  readonly url: string;
  readonly auth: Record<string, string>;
  readonly app: string;
  readonly image: string;
}

async function createRun(c: Client): Promise<string> {
  const res = await fetch(`${c.url}/api/v1/apps/${c.app}`, {
    method: 'POST',
    headers: { ...c.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: { '1:image': c.image } }),
  });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { run_id: string }).run_id;
}

/**
 * Polls back to back until the run is terminal; resolves with its status, when it was seen and
 * when the poll that saw it was sent.
 */
async function pollUntilDone(c: Client, runId: string, intervalMs = 0): Promise<{ status: string; seenAt: number; sentAt: number }> {
  for (;;) {
    const sentAt = now();
    const res = await fetch(`${c.url}/api/v1/runs/${runId}`, { headers: c.auth });
    const seenAt = now();
    const { status } = (await res.json()) as { status: string };
    if (TERMINAL.has(status)) return { status, seenAt, sentAt };
    if (intervalMs > 0) await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The fake alone: `clients` loops of POST /prompt, each waiting for its prompt in /history. */
async function fakeAlone(fake: FakeComfyUI, workflow: Record<string, unknown>, clients: number, seconds: number): Promise<number> {
  let done = 0;
  const until = now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (now() < until) {
        const id = randomUUID();
        const res = await fetch(`${fake.url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: workflow, prompt_id: id, client_id: 'bench' }) });
        if (res.status !== 200) throw new Error(`fake /prompt: ${res.status} ${await res.text()}`);
        while (!fake.finishedAt.has(id)) await new Promise((r) => setTimeout(r, 1));
        const history = (await (await fetch(`${fake.url}/history/${id}`)).json()) as Record<string, unknown>;
        if (!history[id]) throw new Error('fake: no history for a finished prompt');
        done += 1;
      }
    }),
  );
  return done / seconds;
}

async function uploadImage(server: RunloadServer): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([makePng(8, 8, (x, y) => [x * 30, y * 30, 128, 255])], { type: 'image/png' }), 'in.png');
  const res = await fetch(`${server.url}/api/v1/assets`, { method: 'POST', headers: server.auth, body: form });
  return ((await res.json()) as { asset_id: string }).asset_id;
}

interface Throughput {
  readonly runsPerSecond: number;
  /** The server's CPU time over the round (all its threads) per second of it: 1 is one core busy. */
  readonly serverCores: number;
  /** The server's CPU time per completed run, in ms. */
  readonly cpuMsPerRun: number;
  /** SQL statements the server sent per completed run, polls included (its `/metrics` counter). */
  readonly statementsPerRun: number;
}

/** The server's count of the SQL statements it sent so far. */
async function statementsSent(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const count = /^runload_db_statements_total (\d+)/m.exec(text)?.[1];
  if (count === undefined) throw new Error('/metrics has no runload_db_statements_total');
  return Number(count);
}

/** Runs completed per second by 16 clients, each creating a run and polling it every 5 ms until it is done. */
async function endToEnd(client: Client, serverPid: number, seconds: number): Promise<Throughput> {
  let completed = 0;
  const until = now() + seconds * 1000;
  const statementsBefore = await statementsSent(client.url);
  const started = now();
  const cpuBefore = cpuSeconds(serverPid);
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (now() < until) {
        const { status } = await pollUntilDone(client, await createRun(client), 5);
        if (status === 'succeeded') completed += 1;
      }
    }),
  );
  const cpu = cpuSeconds(serverPid) - cpuBefore;
  const elapsed = (now() - started) / 1000;
  const statements = (await statementsSent(client.url)) - statementsBefore;
  const runs = Math.max(1, completed);
  return { runsPerSecond: completed / elapsed, serverCores: cpu / elapsed, cpuMsPerRun: (cpu * 1000) / runs, statementsPerRun: statements / runs };
}

const cores = (t: Throughput) =>
  `the server used ${(t.serverCores * 100).toFixed(0)}% of one core (its threads included), ${t.cpuMsPerRun.toFixed(1)} ms of CPU per run (target < 5 ms: ${t.cpuMsPerRun < 5 ? 'met' : '**missed**'}) and sent ${t.statementsPerRun.toFixed(1)} SQL statements per run, polls included`;

/**
 * What bounds end-to-end throughput, from this run's own figures: the server's main thread is one
 * core, so it completes at most 1,000 / (ms of CPU per run) runs each second that core is its own.
 */
function throughputBound(depth1: Throughput, depth16: Throughput, aloneRate: number): string {
  const ceiling = (t: Throughput) => (1000 / t.cpuMsPerRun).toFixed(0);
  const needed = 1000 / (0.9 * aloneRate);
  return (
    `- what bounds it: the server's CPU per run. It kept ${(depth1.serverCores * 100).toFixed(0)}% of one core busy at depth 1 and ${(depth16.serverCores * 100).toFixed(0)}% at depth 16, and one core gives at most ${ceiling(depth1)} and ${ceiling(depth16)} runs/s at the CPU each run took (measured ${depth1.runsPerSecond.toFixed(0)} and ${depth16.runsPerSecond.toFixed(0)}). ` +
    `90% of the fake alone is ${(0.9 * aloneRate).toFixed(0)} runs/s, which would take under ${needed.toFixed(2)} ms of server CPU per run for everything runload does with a run: its create, its polls, its claim, its prompt, the backend's socket messages, its history read, its output fetched and stored, and its statements`
  );
}

export async function benchDispatch(options: { quick: boolean; say: (line: string) => void }): Promise<void> {
  const { say, quick } = options;
  const runs = quick ? 100 : 1000;
  const seconds = quick ? 3 : 10;
  const fake = await startFakeComfyUI({ executionMs: 0 });
  // Every figure is taken without the profiler (it costs the server about a third of its speed).
  const server = await startRunload('dispatch', {}, fake.url);
  const client: Client = { url: server.url, auth: server.auth, app: server.app, image: await uploadImage(server) };

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
    `  - of it, the poll that saw it was sent p50 ${ms(percentile(seeingPollSent, 50))} after the finish (the history read, the output fetched and stored, the status written, and the poll in flight meanwhile) and took p50 ${ms(percentile(seeingPollTook, 50))} itself`,
  );

  const runload = await endToEnd(client, server.pid, seconds);
  await server.stop();
  const workflow = JSON.parse(JSON.stringify(fake.prompts.at(-1)?.prompt ?? {})) as Record<string, unknown>;
  // Every client's run in ComfyUI's own queue at once, as when the fake is driven alone.
  const deeper = await startRunload('dispatch-depth-16', { RUNLOAD_DISPATCH_DEPTH: '16' }, fake.url);
  const deeperRun = await endToEnd({ ...client, url: deeper.url, auth: deeper.auth, app: deeper.app, image: await uploadImage(deeper) }, deeper.pid, seconds);
  await deeper.stop();
  const aloneRate = await fakeAlone(fake, workflow, 16, seconds);
  const share = runload.runsPerSecond / aloneRate;
  say(
    `- end to end, 16 clients: ${runload.runsPerSecond.toFixed(0)} runs/s completed through runload; the fake alone, driven by 16 clients: ${aloneRate.toFixed(0)} runs/s — ${(share * 100).toFixed(1)}% (target ≥ 90%): ${share >= 0.9 ? 'meets the target' : '**misses the target**'}; ${cores(runload)}`,
  );
  say(
    `- the same with \`RUNLOAD_DISPATCH_DEPTH=16\` (every client's run sent to ComfyUI's own queue at once, as when the fake is driven alone): ${deeperRun.runsPerSecond.toFixed(0)} runs/s — ${((deeperRun.runsPerSecond / aloneRate) * 100).toFixed(1)}%; ${cores(deeperRun)}`,
  );
  if (share < 0.9) say(throughputBound(runload, deeperRun, aloneRate));
  if (!quick) {
    // Where the time goes, from a round of its own under the profiler (full runs only).
    const profileDir = mkdtempSync(path.join(os.tmpdir(), 'runload-bench-profile-'));
    const profiled = await startRunload('dispatch-profiled', {}, fake.url, { profileDir });
    await endToEnd({ ...client, url: profiled.url, auth: profiled.auth, app: profiled.app, image: await uploadImage(profiled) }, profiled.pid, seconds / 2);
    await profiled.stop();
    const summary = summarizeProfileDir(profileDir);
    if (summary) say(`- where the server's time goes (end to end at depth 1, CPU profile of a separate round): ${summary}`);
    if (process.env.RUNLOAD_BENCH_KEEP_PROFILE) process.stdout.write(`profile kept in ${profileDir}\n`);
    else rmSync(profileDir, { recursive: true, force: true });
    if (perfAvailable()) {
      // The same at depth 16, counted only while the server's threads run on a CPU.
      const sampled = await startRunload('dispatch-perf', { RUNLOAD_DISPATCH_DEPTH: '16' }, fake.url);
      const sampledClient = { ...client, url: sampled.url, auth: sampled.auth, app: sampled.app, image: await uploadImage(sampled) };
      const [shares] = await Promise.all([onCpuShares(sampled.pid, seconds / 2 - 1), endToEnd(sampledClient, sampled.pid, seconds / 2)]);
      await sampled.stop();
      const line = shares.filter((s) => s.share >= 0.01).map((s) => `${(s.share * 100).toFixed(0)}% ${s.group}`).join('; ');
      say(`- where the server's CPU time goes (end to end at depth 16, every thread, sampled by \`perf\` only while on a CPU): ${line}`);
    }
  }
  await fake.close();
  say('');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchDispatch({ quick: process.argv.includes('--quick'), say: (l) => process.stdout.write(`${l}\n`) });
}
