/**
 * The clients of the dispatch benchmarks: create a run, poll it until it is done, drive the fake
 * ComfyUI alone, and read the server's statement count. Shared by the dispatch and pool sections.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { makePng, type FakeComfyUI } from '@runload/fake-comfyui';
import { percentile, threadCpuSeconds } from './harness.js';
import type { RunloadServer } from './http-paths.js';

export const now = () => performance.timeOrigin + performance.now();
const TERMINAL = new Set(['succeeded', 'failed', 'canceled', 'expired']);

export interface Client {
  readonly url: string;
  readonly auth: Record<string, string>;
  readonly app: string;
  readonly image: string;
}

/** @param inputs more inputs of the example app (its blur's `2:sigma`, say) */
export async function createRun(c: Client, inputs: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${c.url}/api/v1/apps/${c.app}`, {
    method: 'POST',
    headers: { ...c.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: { '1:image': c.image, ...inputs } }),
  });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { run_id: string }).run_id;
}

/**
 * Polls until the run is terminal (back to back, or every `intervalMs`); resolves with its
 * status, when it was seen and when the poll that saw it was sent.
 */
export async function pollUntilDone(c: Client, runId: string, intervalMs = 0): Promise<{ status: string; seenAt: number; sentAt: number; polls: number }> {
  for (let polls = 1; ; polls += 1) {
    const sentAt = now();
    const res = await fetch(`${c.url}/api/v1/runs/${runId}`, { headers: c.auth });
    const seenAt = now();
    const { status } = (await res.json()) as { status: string };
    if (TERMINAL.has(status)) return { status, seenAt, sentAt, polls };
    if (intervalMs > 0) await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The fake alone: `clients` loops of POST /prompt, each waiting for its prompt in /history. */
export async function fakeAlone(fake: FakeComfyUI, workflow: Record<string, unknown>, clients: number, seconds: number): Promise<number> {
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

export async function uploadImage(server: RunloadServer): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([makePng(8, 8, (x, y) => [x * 30, y * 30, 128, 255])], { type: 'image/png' }), 'in.png');
  const res = await fetch(`${server.url}/api/v1/assets`, { method: 'POST', headers: server.auth, body: form });
  return ((await res.json()) as { asset_id: string }).asset_id;
}

/** A client of `server`, with an input image uploaded. */
export async function clientOf(server: RunloadServer): Promise<Client> {
  return { url: server.url, auth: server.auth, app: server.app, image: await uploadImage(server) };
}

/** The server's count of the SQL statements it sent so far. */
export async function statementsSent(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const count = /^runload_db_statements_total (\d+)/m.exec(text)?.[1];
  if (count === undefined) throw new Error('/metrics has no runload_db_statements_total');
  return Number(count);
}

export interface Throughput {
  readonly runsPerSecond: number;
  /** The server's CPU time over the round (all its threads) per second of it: 1 is one core busy. */
  readonly serverCores: number;
  /** The server's CPU time per completed run, in ms. */
  readonly cpuMsPerRun: number;
  /** The same split by thread (see `threadCpuSeconds`), in ms per completed run. */
  readonly cpuMsPerRunByThread: { readonly mainUser: number; readonly mainSystem: number; readonly otherThreads: number };
  /** SQL statements the server sent per completed run, polls included (its `/metrics` counter). */
  readonly statementsPerRun: number;
  /** Polls the clients sent per completed run. */
  readonly pollsPerRun: number;
  /** From each create request to the poll that saw its run succeeded, in ms: p50 and p99. */
  readonly roundTrip: { readonly p50: number; readonly p99: number };
  /**
   * The longest the bench's own event loop (its clients, and the fake when it runs here) was held,
   * in ms: a stall there delays every round trip in flight without the server being at fault.
   */
  readonly benchStallMs: number;
}

/**
 * Runs completed per second by `clients` clients, each creating a run and polling it every
 * `pollMs` until it is done, for `seconds`.
 */
export async function endToEnd(client: Client, serverPid: number, seconds: number, options: { clients?: number; pollMs?: number; warmUpSeconds?: number } = {}): Promise<Throughput> {
  // The same load first, unmeasured: a server just started spends its first seconds compiling
  // its hot paths (V8's optimizing compiler took a sixth of its CPU in the first 10 s), which a
  // long-running server paid once, long ago.
  if (options.warmUpSeconds) await drive(client, now() + options.warmUpSeconds * 1000, options);
  let completed = 0;
  let polls = 0;
  const roundTrips: number[] = [];
  const until = now() + seconds * 1000;
  const statementsBefore = await statementsSent(client.url);
  const started = now();
  const threadsBefore = threadCpuSeconds(serverPid);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  await drive(client, until, options, (status, roundTrip, runPolls) => {
    polls += runPolls;
    if (status !== 'succeeded') return;
    completed += 1;
    roundTrips.push(roundTrip);
  });
  loop.disable();
  const threadsAfter = threadCpuSeconds(serverPid);
  // Per thread, and the whole process as their sum: one reading of /proc at each end, so the parts add up.
  const mainUser = threadsAfter.mainUser - threadsBefore.mainUser;
  const mainSystem = threadsAfter.mainSystem - threadsBefore.mainSystem;
  const otherThreads = threadsAfter.otherThreads - threadsBefore.otherThreads;
  const cpu = mainUser + mainSystem + otherThreads;
  const elapsed = (now() - started) / 1000;
  const statements = (await statementsSent(client.url)) - statementsBefore;
  const runs = Math.max(1, completed);
  return {
    runsPerSecond: completed / elapsed,
    serverCores: cpu / elapsed,
    cpuMsPerRun: (cpu * 1000) / runs,
    cpuMsPerRunByThread: { mainUser: (mainUser * 1000) / runs, mainSystem: (mainSystem * 1000) / runs, otherThreads: (otherThreads * 1000) / runs },
    statementsPerRun: statements / runs,
    pollsPerRun: polls / runs,
    roundTrip: { p50: percentile(roundTrips, 50), p99: percentile(roundTrips, 99) },
    benchStallMs: loop.max / 1e6,
  };
}

/** `clients` loops until `until`: each creates a run and polls it every `pollMs` until it is done. */
async function drive(client: Client, until: number, options: { clients?: number; pollMs?: number }, done: (status: string, roundTripMs: number, polls: number) => void = () => undefined): Promise<void> {
  await Promise.all(
    Array.from({ length: options.clients ?? 16 }, async () => {
      while (now() < until) {
        const sentAt = now();
        const { status, seenAt, polls } = await pollUntilDone(client, await createRun(client), options.pollMs ?? 5);
        done(status, seenAt - sentAt, polls);
      }
    }),
  );
}
