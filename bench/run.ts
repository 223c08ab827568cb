/**
 * `pnpm bench`: the hot paths of the real server, each against a baseline measured in the same
 * run on the same machine (a bare node:http server answering the same bytes), so the ratios hold
 * on a noisy machine. Writes BENCHMARKS.md. `pnpm bench --quick` runs short rounds (a smoke test).
 * @module
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { startFakeComfyUI } from '@runload/fake-comfyui';
import { openDatabase } from '@runload/storage-adapter';
import { autocannon, cli, machine, peakRssMiB, ROOT, startListening, type LoadResult } from './harness.js';

const quick = process.argv.includes('--quick');
const SECONDS = quick ? 2 : 10;
const CONNECTIONS = 64;
const UPLOAD_MIB = quick ? 32 : 256;
const lines: string[] = [];
const say = (line: string) => {
  process.stdout.write(`${line}\n`);
  lines.push(line);
};
const fmt = (r: LoadResult) => `${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? `, ${r.non2xx} non-2xx` : ''}${r.errors ? `, ${r.errors} errors` : ''}`;
const ratio = (a: number, b: number) => `${((a / b) * 100).toFixed(1)}%`;

const LIMITS = {
  general_per_minute: 1e9,
  auth_failures_per_minute: 1e9,
  tiers: Object.fromEntries(['starter', 'plus', 'max', 'ultra'].map((t) => [t, { runs_per_minute: 1e9, runs_per_hour: 1e9, gpu_seconds_per_month: 1e12 }])),
};

async function runloadServer(name: string, extra: Record<string, string>, fakeUrl: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `runload-bench-${name}-`));
  const limitsFile = path.join(dir, 'limits.json');
  writeFileSync(limitsFile, JSON.stringify(LIMITS));
  const env = {
    RUNLOAD_DATA_DIR: dir,
    RUNLOAD_LIMITS_FILE: limitsFile,
    RUNLOAD_COMFYUI_URLS: fakeUrl,
    RUNLOAD_LOG_LEVEL: 'silent',
    RUNLOAD_PORT: '0',
    RUNLOAD_MAX_UPLOAD_BYTES: String((UPLOAD_MIB + 16) * 1024 * 1024),
    ...extra,
  };
  const account = await cli(['accounts', 'create', '--name', 'bench', '--tier', 'ultra'], env);
  const key = String((await cli(['keys', 'create', '--account', String(account['account_id'])], env))['api_key']);
  const app = String((await cli(['apps', 'publish', '--name', 'b', '--workflow', path.join(ROOT, 'examples/workflows/image-blur.api.json')], env))['app_version_id']);
  const server = await startListening('packages/server/src/cli/main.ts', ['serve'], env);
  return { dir, env, key, app, server, auth: { authorization: `Bearer ${key}` }, cleanup: async () => { await server.stop(); rmSync(dir, { recursive: true, force: true }); } };
}

say(`# Benchmarks`);
say('');
say(`Machine: ${machine()}. Run ${new Date().toISOString()}${quick ? ' (quick mode: short rounds)' : ''}.`);
say(`Load: autocannon in its own process, ${CONNECTIONS} connections, ${SECONDS} s per round. Baseline: a bare node:http server answering the same bytes.`);
say('');

// The fake backend stays paused: runs are accepted (a backend is reachable) and wait in the database.
const fake = await startFakeComfyUI({ executionMs: 0 });
fake.pause();

const sqlite = await runloadServer('sqlite', {}, fake.url);
const created = await fetch(`${sqlite.server.url}/api/v1/apps/${sqlite.app}`, { method: 'POST', headers: { ...sqlite.auth, 'content-type': 'application/json' }, body: '{"inputs":{}}' });
const createdBody = await created.text();
const { run_id: runId } = JSON.parse(createdBody) as { run_id: string };
const pollBody = await (await fetch(`${sqlite.server.url}/api/v1/runs/${runId}`, { headers: sqlite.auth })).text();
const baseline = await startListening('bench/baseline-server.ts', [], { BASELINE_BODY: pollBody, BASELINE_CREATED: createdBody, BASELINE_DIR: sqlite.dir });

say('## 1. Polling `GET /api/v1/runs/{id}`');
const basePoll = await autocannon(`${baseline.url}/`, { connections: CONNECTIONS, seconds: SECONDS });
const poll = await autocannon(`${sqlite.server.url}/api/v1/runs/${runId}`, { connections: CONNECTIONS, seconds: SECONDS, headers: sqlite.auth });
say(`- baseline: ${fmt(basePoll)}`);
say(`- runload (SQLite): ${fmt(poll)} — ${ratio(poll.rps, basePoll.rps)} of baseline (target ≥ 60%, p99 < 10 ms)`);
say('');

say('## 2. Run creation `POST /api/v1/apps/{id}`');
const body = '{"inputs":{}}';
const json = { 'content-type': 'application/json' };
const baseCreate = await autocannon(`${baseline.url}/create`, { connections: CONNECTIONS, seconds: SECONDS, method: 'POST', headers: json, body });
const create = await autocannon(`${sqlite.server.url}/api/v1/apps/${sqlite.app}`, { connections: CONNECTIONS, seconds: SECONDS, method: 'POST', headers: { ...sqlite.auth, ...json }, body });
say(`- baseline: ${fmt(baseCreate)}`);
say(`- runload (SQLite, in-process limiter): ${fmt(create)} — ${ratio(create.rps, baseCreate.rps)} of baseline (target ≥ 2,000 runs/s)`);
const pgUrl = process.env['RUNLOAD_BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env['RUNLOAD_BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const dbName = `runload_bench_${Date.now()}`;
const admin = openDatabase({ url: pgUrl, dataDir: sqlite.dir });
try {
  await admin.raw(`CREATE DATABASE ${dbName}`);
  const url = new URL(pgUrl);
  url.pathname = `/${dbName}`;
  const pg = await runloadServer('pg', { RUNLOAD_DATABASE_URL: url.toString(), RUNLOAD_REDIS_URL: redisUrl }, fake.url);
  const pgCreate = await autocannon(`${pg.server.url}/api/v1/apps/${pg.app}`, { connections: CONNECTIONS, seconds: SECONDS, method: 'POST', headers: { ...pg.auth, ...json }, body });
  say(`- runload (PostgreSQL + Redis): ${fmt(pgCreate)} — ${ratio(pgCreate.rps, baseCreate.rps)} of baseline (target ≥ 1,000 runs/s)`);
  await pg.cleanup();
  await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
} catch (error) {
  say(`- runload (PostgreSQL + Redis): not measured: ${(error as Error).message}`);
} finally {
  await admin.destroy();
}
say('');

say(`## 3. Upload of a ${UPLOAD_MIB} MiB WAV`);
const wav = path.join(sqlite.dir, 'big.wav');
const out = createWriteStream(wav);
const header = Buffer.alloc(44);
header.write('RIFF', 0);
header.writeUInt32LE(36 + UPLOAD_MIB * 1024 * 1024, 4);
header.write('WAVEfmt ', 8);
header.writeUInt32LE(16, 16);
header.writeUInt16LE(1, 20);
header.writeUInt16LE(2, 22);
header.writeUInt32LE(48000, 24);
header.writeUInt32LE(192000, 28);
header.writeUInt16LE(4, 32);
header.writeUInt16LE(16, 34);
header.write('data', 36);
header.writeUInt32LE(UPLOAD_MIB * 1024 * 1024, 40);
out.write(header);
const chunk = Buffer.alloc(1024 * 1024, 7);
for (let i = 0; i < UPLOAD_MIB; i += 1) if (!out.write(chunk)) await once(out, 'drain');
out.end();
await once(out, 'finish');
const curl = (args: string[]) => Number(execFileSync('curl', ['-s', '-o', '/dev/null', '-w', '%{time_total}', ...args]).toString());
const before = peakRssMiB(sqlite.server.pid);
const baseSeconds = curl(['--data-binary', `@${wav}`, '-H', 'content-type: application/octet-stream', `${baseline.url}/upload`]);
const upSeconds = curl(['-H', `authorization: Bearer ${sqlite.key}`, '-F', `file=@${wav};type=audio/wav`, `${sqlite.server.url}/api/v1/assets`]);
const after = peakRssMiB(sqlite.server.pid);
say(`- baseline (stream to disk): ${(UPLOAD_MIB / baseSeconds).toFixed(0)} MiB/s`);
say(`- runload: ${(UPLOAD_MIB / upSeconds).toFixed(0)} MiB/s — ${ratio(baseSeconds, upSeconds)} of baseline (target ≥ 70%)`);
say(`- server peak memory: ${before.toFixed(0)} MiB before, ${after.toFixed(0)} MiB after: growth ${(after - before).toFixed(0)} MiB (target < 64 MiB)`);
say('');
say('## 4. Dispatch overhead and 5. scale of data');
say('Not measured yet (see the open work in the README).');

await baseline.stop();
await sqlite.cleanup();
await fake.close();
if (!quick) writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), `${lines.join('\n')}\n`);
