/**
 * Benchmarks 1–3: polling, run creation and a large upload through the real server (its own
 * process, limits raised), each against a bare node:http baseline measured in the same run.
 * A figure that misses its target is followed by the server's CPU profile under the same load.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '@runload/storage-adapter';
import { autocannon, cli, cpuSeconds, peakRssMiB, percentile, ROOT, SERVER_MAIN, startListening, type LoadResult } from './harness.js';
import { summarizeProfileDir } from './profile-summary.js';

export interface BenchOptions {
  readonly quick: boolean;
  readonly say: (line: string) => void;
  /** The fake ComfyUI, paused: runs are accepted (a backend is reachable) and wait in the database. */
  readonly fakeUrl: string;
}

const CONNECTIONS = 64;
/** Seconds of the same load before a measured polling window. */
const WARM_UP_SECONDS = 3;

export const RAISED_LIMITS = {
  general_per_minute: 1e9,
  auth_failures_per_minute: 1e9,
  tiers: Object.fromEntries(['starter', 'plus', 'max', 'ultra'].map((t) => [t, { runs_per_minute: 1e9, runs_per_hour: 1e9, gpu_seconds_per_month: 1e12 }])),
};

const fmt = (r: LoadResult) =>
  `${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? `, ${r.non2xx} non-2xx` : ''}${r.errors ? `, ${r.errors} errors` : ''}`;
const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(1)}%`;
const verdict = (met: boolean) => (met ? 'meets the target' : '**misses the target**');

export interface RunloadServer {
  readonly url: string;
  readonly pid: number;
  readonly key: string;
  readonly app: string;
  readonly dir: string;
  readonly auth: Record<string, string>;
  stop(): Promise<void>;
}

export interface PreparedData {
  readonly dir: string;
  readonly env: Record<string, string>;
  readonly key: string;
  readonly accountId: string;
  readonly app: string;
}

/** The example app every bench server publishes unless told another workflow file. */
export const EXAMPLE_WORKFLOW = path.join(ROOT, 'examples/workflows/image-blur.api.json');

/** A data directory (or PostgreSQL database, through `extra`) with an account, a key and the example app (or `workflowFile`'s). */
export async function prepareRunload(name: string, extra: Record<string, string>, fakeUrl: string, options: { uploadMiB?: number; workflowFile?: string } = {}): Promise<PreparedData> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `runload-bench-${name}-`));
  const limitsFile = path.join(dir, 'limits.json');
  writeFileSync(limitsFile, JSON.stringify(RAISED_LIMITS));
  const env = {
    RUNLOAD_DATA_DIR: dir,
    RUNLOAD_LIMITS_FILE: limitsFile,
    RUNLOAD_COMFYUI_URLS: fakeUrl,
    RUNLOAD_LOG_LEVEL: 'silent',
    RUNLOAD_PORT: '0',
    RUNLOAD_MAX_UPLOAD_BYTES: String(((options.uploadMiB ?? 0) + 16) * 1024 * 1024),
    ...extra,
  };
  const account = await cli(['accounts', 'create', '--name', 'bench', '--tier', 'ultra'], env);
  const accountId = String(account['account_id']);
  const key = String((await cli(['keys', 'create', '--account', accountId], env))['api_key']);
  const app = String((await cli(['apps', 'publish', '--name', 'b', '--workflow', options.workflowFile ?? EXAMPLE_WORKFLOW], env))['app_version_id']);
  return { dir, env, key, accountId, app };
}

/** The server on prepared data, in its own process; `stop` also removes the data directory. */
export async function startOn(data: PreparedData, options: { profileDir?: string } = {}): Promise<RunloadServer> {
  const server = await startListening(SERVER_MAIN, ['serve'], data.env, options.profileDir ? { profileDir: options.profileDir } : {});
  return {
    url: server.url,
    pid: server.pid,
    key: data.key,
    app: data.app,
    dir: data.dir,
    auth: { authorization: `Bearer ${data.key}` },
    stop: async () => {
      await server.stop();
      rmSync(data.dir, { recursive: true, force: true });
    },
  };
}

/** A data directory with an account, a key and the example app, and the server on it. */
export async function startRunload(name: string, extra: Record<string, string>, fakeUrl: string, options: { profileDir?: string; uploadMiB?: number; workflowFile?: string } = {}): Promise<RunloadServer> {
  const { profileDir: _, ...prepare } = options;
  const data = await prepareRunload(name, extra, fakeUrl, prepare);
  return startOn(data, options.profileDir ? { profileDir: options.profileDir } : {});
}

async function createRun(server: RunloadServer): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/apps/${server.app}`, { method: 'POST', headers: { ...server.auth, 'content-type': 'application/json' }, body: '{"inputs":{}}' });
  return res.text();
}

/** Runs `load` against a server started with a CPU profile, and prints where its time went. */
async function profileUnder(options: BenchOptions, what: string, load: (server: RunloadServer) => Promise<unknown>): Promise<void> {
  const profileDir = mkdtempSync(path.join(os.tmpdir(), 'runload-bench-profile-'));
  const server = await startRunload('profile', {}, options.fakeUrl, { profileDir });
  await load(server);
  await server.stop();
  const summary = summarizeProfileDir(profileDir);
  if (summary) options.say(`- where the server's time goes (${what}, CPU profile): ${summary}`);
  rmSync(profileDir, { recursive: true, force: true });
}

export function writeWav(file: string, mib: number): Promise<unknown> {
  const out = createWriteStream(file);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + mib * 1024 * 1024, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(2, 22); // stereo
  header.writeUInt32LE(48000, 24);
  header.writeUInt32LE(192000, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(mib * 1024 * 1024, 40);
  out.write(header);
  return (async () => {
    const chunk = Buffer.alloc(1024 * 1024, 7);
    for (let i = 0; i < mib; i += 1) if (!out.write(chunk)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
  })();
}

export async function benchHttpPaths(options: BenchOptions): Promise<void> {
  const { say, quick } = options;
  const seconds = quick ? 2 : 10;
  const uploadMiB = quick ? 32 : 256;
  const sqlite = await startRunload('sqlite', {}, options.fakeUrl);
  const createdBody = await createRun(sqlite);
  const { run_id: runId } = JSON.parse(createdBody) as { run_id: string };
  const pollBody = await (await fetch(`${sqlite.url}/api/v1/runs/${runId}`, { headers: sqlite.auth })).text();
  // Its files go to the same disk as the servers' data directories.
  const baselineDir = mkdtempSync(path.join(os.tmpdir(), 'runload-bench-baseline-'));
  const baseline = await startListening('bench/baseline-server.ts', [], { BASELINE_BODY: pollBody, BASELINE_CREATED: createdBody, BASELINE_DIR: baselineDir });
  const json = { 'content-type': 'application/json' };
  const body = '{"inputs":{}}';

  say('## 1. Polling `GET /api/v1/runs/{id}`');
  // Each side is measured after the same load for a few seconds, unmeasured: a long-running
  // server's figures, not those of a process still compiling its hot paths.
  // With the server's CPU time per request (all its threads) over the measured window: the ratio
  // of rates depends on how the machine shares its cores with the load generator, this does not.
  const warmedUp = async (url: string, pid: number, headers: Record<string, string> = {}) => {
    if (!quick) await autocannon(url, { connections: CONNECTIONS, seconds: WARM_UP_SECONDS, headers });
    const cpuBefore = cpuSeconds(pid);
    const result = await autocannon(url, { connections: CONNECTIONS, seconds, headers });
    return { ...result, cpuUsPerRequest: ((cpuSeconds(pid) - cpuBefore) * 1e6) / Math.max(1, result.rps * seconds) };
  };
  const poll = (server: RunloadServer, id: string, s = seconds) => autocannon(`${server.url}/api/v1/runs/${id}`, { connections: CONNECTIONS, seconds: s, headers: server.auth });
  const basePoll = await warmedUp(`${baseline.url}/`, baseline.pid);
  const h3 = await startListening('bench/h3-baseline-server.ts', [], { BASELINE_BODY: pollBody });
  const h3Poll = await warmedUp(`${h3.url}/api/v1/runs/${runId}`, h3.pid);
  await h3.stop();
  const polled = await warmedUp(`${sqlite.url}/api/v1/runs/${runId}`, sqlite.pid, sqlite.auth);
  const pollMet = polled.rps >= 0.6 * basePoll.rps && polled.p99 < 10;
  say(`- baseline: ${fmt(basePoll)}`);
  say(`- a bare h3 app answering the same bytes on the same Node adapter (the framework's own ceiling): ${fmt(h3Poll)} — ${pct(h3Poll.rps, basePoll.rps)} of baseline`);
  say(`- runload (SQLite): ${fmt(polled)} — ${pct(polled.rps, basePoll.rps)} of baseline (target ≥ 60%, p99 < 10 ms): ${verdict(pollMet)}`);
  const us = (v: number) => `${v.toFixed(1)} µs`;
  say(
    `  - server CPU per request (all its threads): baseline ${us(basePoll.cpuUsPerRequest)}, bare h3 ${us(h3Poll.cpuUsPerRequest)}, runload ${us(polled.cpuUsPerRequest)}; ` +
      `at 60% of the baseline's rate on the same share of the machine, a poll could cost about ${us(basePoll.cpuUsPerRequest / 0.6)}, of which the bare h3 app already takes ${us(h3Poll.cpuUsPerRequest)}`,
  );
  if (!pollMet && !quick) {
    await profileUnder(options, 'polling', async (s) => poll(s, JSON.parse(await createRun(s)).run_id as string, 5));
  }
  say('');

  say('## 2. Run creation `POST /api/v1/apps/{id}`');
  const create = (server: RunloadServer, s = seconds) =>
    autocannon(`${server.url}/api/v1/apps/${server.app}`, { connections: CONNECTIONS, seconds: s, method: 'POST', headers: { ...server.auth, ...json }, body });
  const baseCreate = await autocannon(`${baseline.url}/create`, { connections: CONNECTIONS, seconds, method: 'POST', headers: json, body });
  const created = await create(sqlite);
  const createMet = created.rps >= 2000 && created.non2xx === 0;
  say(`- baseline: ${fmt(baseCreate)}`);
  say(`- runload (SQLite, in-process limiter): ${fmt(created)} — ${pct(created.rps, baseCreate.rps)} of baseline (target ≥ 2,000 runs/s): ${verdict(createMet)}`);
  await benchPostgresCreation(options, create, baseCreate.rps);
  if (!createMet && !quick) await profileUnder(options, 'run creation on SQLite', (s) => create(s, 5));
  say('');

  // The creation round left tens of thousands of runs queued there, which its dispatcher works
  // through for minutes: the upload is measured on a server of its own, with nothing else to do.
  await sqlite.stop();
  const uploader = await startRunload('upload', {}, options.fakeUrl, { uploadMiB });

  say(`## 3. Upload of a ${uploadMiB} MiB WAV`);
  const wav = path.join(uploader.dir, 'big.wav');
  await writeWav(wav, uploadMiB);
  const curl = (args: string[]) => Number(execFileSync('curl', ['-s', '-o', '/dev/null', '-w', '%{time_total}', ...args]).toString());
  const before = peakRssMiB(uploader.pid);
  // Three alternating rounds, the median of each: one upload is a second or two, and the disk is shared.
  const baseRounds: number[] = [];
  const upRounds: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    baseRounds.push(curl(['-F', `file=@${wav};type=audio/wav`, `${baseline.url}/upload`]));
    upRounds.push(curl(['-H', `authorization: Bearer ${uploader.key}`, '-F', `file=@${wav};type=audio/wav`, `${uploader.url}/api/v1/assets`]));
  }
  const baseSeconds = percentile(baseRounds, 50);
  const upSeconds = percentile(upRounds, 50);
  const after = peakRssMiB(uploader.pid);
  say(`- baseline (the same multipart request streamed as it is to a file, synced to disk before the answer): ${(uploadMiB / baseSeconds).toFixed(0)} MiB/s (median of 3)`);
  say(`- runload (multipart parsed, type detected, hashed, synced to disk before the answer): ${(uploadMiB / upSeconds).toFixed(0)} MiB/s (median of 3) — ${pct(baseSeconds, upSeconds)} of baseline (target ≥ 70%): ${verdict(baseSeconds / upSeconds >= 0.7)}`);
  say(`- server peak memory: ${before.toFixed(0)} MiB before, ${after.toFixed(0)} MiB after: growth ${(after - before).toFixed(0)} MiB (target < 64 MiB): ${verdict(after - before < 64)}`);
  say('');

  await baseline.stop();
  await uploader.stop();
  rmSync(baselineDir, { recursive: true, force: true });
}

/** Run creation on PostgreSQL with the Redis limiter, in a database of its own, dropped after. */
async function benchPostgresCreation(options: BenchOptions, create: (server: RunloadServer) => Promise<LoadResult>, baselineRps: number): Promise<void> {
  const pgUrl = process.env['RUNLOAD_BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = process.env['RUNLOAD_BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
  const dbName = `runload_bench_${Date.now()}`;
  const admin = openDatabase({ url: pgUrl, dataDir: os.tmpdir() });
  try {
    await admin.raw(`CREATE DATABASE ${dbName}`);
    const url = new URL(pgUrl);
    url.pathname = `/${dbName}`;
    const pg = await startRunload('pg', { RUNLOAD_DATABASE_URL: url.toString(), RUNLOAD_REDIS_URL: redisUrl }, options.fakeUrl);
    const result = await create(pg);
    options.say(
      `- runload (PostgreSQL + Redis): ${fmt(result)} — ${pct(result.rps, baselineRps)} of baseline (target ≥ 1,000 runs/s): ${verdict(result.rps >= 1000 && result.non2xx === 0)}`,
    );
    await pg.stop();
  } catch (error) {
    options.say(`- runload (PostgreSQL + Redis): not measured: ${(error as Error).message}`);
  } finally {
    await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.destroy();
  }
}
