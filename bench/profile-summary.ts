/**
 * Where a server's time went under load: a V8 CPU profile's samples grouped by component, so
 * BENCHMARKS.md can show what bounds a figure that misses its target.
 * @module
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const COMPONENTS: readonly [string, (fn: string, url: string) => boolean][] = [
  ['idle: waiting on the database threads, sockets or timers', (fn) => fn === '(idle)'],
  ['garbage collection', (fn) => fn === '(garbage collector)'],
  ['startup (loading modules)', (_fn, url) => /node:internal\/modules|tsx|esm/.test(url)],
  // The driver's calls run under runload's statement cache, which calls them: counted as the driver.
  // V8 samples by the wall clock: a main thread that waits for a CPU after waking a database thread
  // (two cores, all busy) is counted in the call that woke it.
  // The server runs compiled in the benchmark (dist/…js) and through tsx elsewhere (src/…ts).
  ['sqlite3 driver calls on the main thread (waits for a CPU included)', (_fn, url) => /\/sqlite3@/.test(url) || /\/sqlite-statement-cache\.[jt]s$/.test(url)],
  ['runload code', (_fn, url) => url.includes('/packages/')],
  ['h3, srvx and rou3 (the HTTP framework)', (_fn, url) => /\/(h3|srvx|rou3)@/.test(url)],
  ['knex and tarn (query building, pool)', (_fn, url) => /\/(knex|tarn)@/.test(url)],
  ['pg and ioredis drivers', (_fn, url) => /\/(pg|pg-protocol|ioredis)@/.test(url)],
  ['formidable and file-type', (_fn, url) => /\/(formidable|file-type|strtok3|token-types)@/.test(url)],
  ['Node HTTP, streams and sockets (as in the baseline)', (fn, url) => /node:(_http|net|internal\/streams|internal\/stream_base|events|stream)/.test(url) || fn === 'writev' || fn === 'writeUtf8String'],
  ['native code outside JavaScript (parser, libuv, V8)', (fn) => fn === '(program)'],
];

/**
 * Shares of the profile's sampled time by `keyOf` of the frame each sample fell in, largest first.
 * A sample whose frame is missing from the profile counts in the whole but in no share.
 */
function sharesBy(file: string, keyOf: (frame: CallFrame) => string): { key: string; share: number }[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = profile.timeDeltas[i] ?? 0;
    all += dt;
    if (!node) return;
    const key = keyOf(node.callFrame);
    totals.set(key, (totals.get(key) ?? 0) + dt);
  });
  return [...totals.entries()].map(([key, t]) => ({ key, share: t / all })).sort((a, b) => b.share - a.share);
}

/** Shares of the profile's time per component, largest first. */
export function summarizeProfile(file: string): { component: string; share: number }[] {
  return sharesBy(file, ({ functionName, url }) => COMPONENTS.find(([, matches]) => matches(functionName, url))?.[0] ?? 'other (Node internals, undici, crypto)').map(
    ({ key, share }) => ({ component: key, share }),
  );
}

/** The functions the profile's samples fell in most often (self time), largest first. */
export function topFrames(file: string, count: number): { frame: string; share: number }[] {
  return sharesBy(file, ({ functionName, url }) => {
    // Where the function lives, short: the package (and its file) or the Node module.
    const where = url.replace(/^.*\/node_modules\/\.pnpm\/([^/]+)\/.*\/([^/]+)$/, '$1 $2').replace(/^.*\/packages\/([^/]+)\/(?:dist|src)\//, '$1/');
    return where ? `${functionName || '(anonymous)'} (${where})` : functionName || '(anonymous)';
  })
    .slice(0, count)
    .map(({ key, share }) => ({ frame: key, share }));
}

/** The largest profile written into `dir`, or null when there is none. */
export function largestProfile(dir: string): string | null {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const largest = files.map((f) => ({ f, size: statSync(path.join(dir, f)).size })).sort((a, b) => b.size - a.size)[0];
  return largest ? path.join(dir, largest.f) : null;
}

/** The summary of the (largest) profile written into `dir`, as one line, or null when there is none. */
export function summarizeProfileDir(dir: string): string | null {
  const largest = largestProfile(dir);
  if (!largest) return null;
  return summarizeProfile(largest)
    .filter((s) => s.share >= 0.01)
    .map((s) => `${(s.share * 100).toFixed(0)}% ${s.component}`)
    .join('; ');
}
