/**
 * How many times a server makes each of a few system calls, counted by Linux `perf` on the
 * kernel's syscall tracepoints for every thread of the process. It tells what the threads beside
 * the event loop spend their time on: SQLite's page reads and WAL writes, the locks and wake-ups
 * of a statement's trip to libuv's pool. Where tracepoints cannot be read (no `perf`, or a kernel
 * that hides them), this is left out.
 * @module
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The calls counted, each with what it is in this server. */
export const COUNTED_CALLS: readonly (readonly [string, string])[] = [
  ['pread64', 'reads of a file at an offset: SQLite reading its pages from the database or its WAL'],
  ['pwrite64', 'writes at an offset: SQLite appending pages to its WAL, each frame a header and a page'],
  ['fcntl', 'SQLite taking and releasing its locks'],
  ['futex', 'threads waiting for and waking each other: each statement handed to libuv\'s pool, and its answer handed back'],
  ['read', 'reads from sockets and files'],
  ['writev', 'socket writes of HTTP answers'],
  ['write', 'other writes: sockets, files, waking the event loop'],
  ['fsync', 'files made durable'],
];

const tracepoint = (call: string) => `syscalls:sys_enter_${call}`;

/** True when `perf` can count a syscall tracepoint here. */
export function syscallCountingAvailable(): boolean {
  const probe = spawnSync('perf', ['stat', '-x', ',', '-e', tracepoint('pread64'), 'true'], { encoding: 'utf8' });
  return probe.status === 0 && !/not supported|<not counted>/.test(probe.stderr);
}

/** Counts each of {@link COUNTED_CALLS} made by the process `pid` (all its threads) for `seconds`. */
export async function countSyscalls(pid: number, seconds: number): Promise<Map<string, number>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runload-syscalls-'));
  const out = path.join(dir, 'stat.csv');
  try {
    const events = COUNTED_CALLS.map(([call]) => tracepoint(call)).join(',');
    await new Promise<void>((resolve, reject) => {
      execFile('perf', ['stat', '-x', ',', '-e', events, '-p', String(pid), '-o', out, '--', 'sleep', String(seconds)], (error, _stdout, stderr) =>
        error ? reject(new Error(`perf stat: ${stderr || error.message}`)) : resolve(),
      );
    });
    const counts = new Map<string, number>();
    // perf's CSV: value, unit, event name, …
    for (const line of readFileSync(out, 'utf8').split('\n')) {
      const [value, , event] = line.split(',');
      const call = event?.startsWith('syscalls:sys_enter_') ? event.slice('syscalls:sys_enter_'.length) : undefined;
      if (call && value !== undefined && /^\d+$/.test(value)) counts.set(call, Number(value));
    }
    return counts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
