/** Process helpers for the benchmarks: start servers, drive autocannon, read memory. */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** How a TypeScript script runs (the baselines, the S3 server); compiled JavaScript runs as it is. */
const TS_ARGS = ['--conditions=@runload/source', '--import', 'tsx'];
const argsFor = (script: string) => (script.endsWith('.ts') ? TS_ARGS : []);

/**
 * The server as a production install runs it: compiled JavaScript. Run from the sources, tsx's
 * loader (a thread of its own and the modules it compiled) holds about 57 MiB more.
 */
export const SERVER_MAIN = 'packages/server/dist/cli/main.js';

/** Compiles every package (incremental: quick when nothing changed), so `SERVER_MAIN` is current. */
export function buildServer(): void {
  execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
}

export interface Listening {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** `RUNLOAD_BENCH_PROFILE=<dir>` writes a V8 CPU profile of every server the benchmarks start. */
const PROFILE_DIR = process.env['RUNLOAD_BENCH_PROFILE'];

/** @param options.profileDir write a V8 CPU profile of this process there when it stops */
export function startListening(script: string, args: readonly string[], env: Record<string, string>, options: { profileDir?: string } = {}): Promise<Listening> {
  const profileDir = options.profileDir ?? PROFILE_DIR;
  const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profileArgs, ...argsFor(script), path.join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        resolve({
          url: m[1],
          pid: child.pid as number,
          stop: () =>
            new Promise<void>((done) => {
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export function cli(args: readonly string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(ROOT, SERVER_MAIN), ...args, '--json'], { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${args.join(' ')}: ${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

export interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** autocannon in its own process. */
export function autocannon(url: string, options: { connections: number; seconds: number; method?: string; headers?: Record<string, string>; body?: string }): Promise<LoadResult> {
  const args = ['-j', '-c', String(options.connections), '-d', String(options.seconds), '-m', options.method ?? 'GET'];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (options.body) args.push('-b', options.body);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(path.join(ROOT, 'node_modules/.bin/autocannon'), args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const r = JSON.parse(stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
      resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors });
    });
  });
}

/** Peak resident memory of a process, in MiB (VmHWM). */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** User and system CPU time from a `/proc/…/stat` file, in seconds. */
function statCpu(file: string): { user: number; system: number } {
  // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100 per second on Linux).
  const fields = readFileSync(file, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/** CPU time a process has used so far (user and system, all its threads), in seconds. */
export function cpuSeconds(pid: number): number {
  const { user, system } = statCpu(`/proc/${pid}/stat`);
  return user + system;
}

/**
 * A process's CPU time so far, in seconds, split by thread: its main thread (the event loop), in
 * user space and in the kernel, and all its other threads together (libuv's pool, where SQLite
 * statements and file calls run, and V8's garbage collector and compiler).
 */
export interface ThreadCpu {
  readonly mainUser: number;
  readonly mainSystem: number;
  readonly otherThreads: number;
}

export function threadCpuSeconds(pid: number): ThreadCpu {
  // The main thread's id is the process id.
  const main = statCpu(`/proc/${pid}/task/${pid}/stat`);
  return { mainUser: main.user, mainSystem: main.system, otherThreads: cpuSeconds(pid) - main.user - main.system };
}

export function machine(): string {
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  const cores = readFileSync('/proc/cpuinfo', 'utf8').split('\n').filter((l) => l.startsWith('processor')).length;
  const mem = Number(/MemTotal:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) / 1024 / 1024;
  return `${cores} cores (${cpu}), ${mem.toFixed(0)} GiB RAM, Node ${process.version}, ${process.platform}`;
}

/** The value below which `p` percent of `values` lie (the sample at that rank; 50 is the median). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Latency of one client making requests back to back for `seconds`, in ms with µs precision. */
export async function sequentialLatency(url: string, init: RequestInit, seconds: number): Promise<{ p50: number; p99: number; n: number }> {
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const t0 = performance.now();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status}`);
    times.push(performance.now() - t0);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), n: times.length };
}
