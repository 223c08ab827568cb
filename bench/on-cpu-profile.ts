/**
 * Where a server's CPU time goes, counted only while it runs on a CPU: Linux `perf` sampling the
 * `cpu-clock` event of every thread of the process, grouped by the binary the sample fell in.
 *
 * V8's own profile samples the main thread by the wall clock, so a thread waiting for a CPU (on a
 * 2-core machine, after it woke a database thread) shows as the call it was in. perf tells the
 * kernel's share (system calls, switching threads), the SQLite engine's and V8's apart. It runs
 * only where `perf` is installed (Debian's linux-perf); elsewhere this section is left out.
 * @module
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** True when `perf` can sample the cpu-clock event here. */
export function perfAvailable(): boolean {
  const probe = spawnSync('perf', ['stat', '-e', 'cpu-clock', 'true'], { encoding: 'utf8' });
  return probe.status === 0;
}

const GROUPS: readonly [string, (dso: string) => boolean][] = [
  ['the kernel (system calls, thread switches, sockets, disk)', (dso) => dso === '[kernel.kallsyms]'],
  ['V8 and Node itself (interpreter, compiler, garbage collector, built-ins)', (dso) => dso === 'node'],
  ['JavaScript compiled by V8', (dso) => dso.startsWith('[JIT]') || dso.startsWith('perf-')],
  ['the SQLite engine and its driver', (dso) => dso.startsWith('node_sqlite3')],
  ['the C library (memory, locks)', (dso) => dso.startsWith('libc') || dso.startsWith('libstdc++') || dso.startsWith('libm')],
];

/** Samples the process `pid` for `seconds` (all its threads) and returns the shares, largest first. */
export async function onCpuShares(pid: number, seconds: number): Promise<{ group: string; share: number }[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runload-perf-'));
  const data = path.join(dir, 'perf.data');
  try {
    await run('perf', ['record', '-q', '-e', 'cpu-clock', '-F', '999', '-p', String(pid), '-o', data, '--', 'sleep', String(seconds)]);
    const report = await run('perf', ['report', '-i', data, '--stdio', '--no-children', '--sort', 'dso', '-g', 'none']);
    const totals = new Map<string, number>();
    for (const line of report.split('\n')) {
      const m = /^\s*([\d.]+)%\s+(\S.*?)\s*$/.exec(line);
      if (!m?.[1] || !m[2]) continue;
      const group = GROUPS.find(([, matches]) => matches(m[2] as string))?.[0] ?? 'other libraries';
      totals.set(group, (totals.get(group) ?? 0) + Number(m[1]) / 100);
    }
    return [...totals.entries()].map(([group, share]) => ({ group, share })).sort((a, b) => b.share - a.share);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => (error ? reject(new Error(`${command} ${args[0]}: ${stderr || error.message}`)) : resolve(stdout)));
  });
}
