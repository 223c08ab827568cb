/**
 * Benchmark 5: poll and create latency on a database with 1,000,000 runs and 1,000,000 assets
 * against the same with 1,000, in alternating rounds, and the query plans of the hot queries on
 * the large one: on SQLite (the default deployment), then on PostgreSQL (many instances). Both
 * hold the same queue of thousands of waiting runs, so the polled run's queue position counts them.
 * @module
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import { newQueuedRun } from '@runload/core';
import { dialectOf, KnexAssetRepository, KnexGpuLedger, KnexRunRepository, openDatabase } from '@runload/storage-adapter';
import { percentile, sequentialLatency } from './harness.js';
import { prepareRunload, startOn, type PreparedData, type RunloadServer } from './http-paths.js';
import { seedHistory } from './seed-history.js';


/** Where a benchmark database lives: SQLite in the data directory, or a PostgreSQL database of its own. */
interface Store {
  readonly name: 'SQLite' | 'PostgreSQL';
  /** A fresh database for one size: the server's environment for it, and how to drop it after. */
  create(label: string): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
  open(data: PreparedData): Knex;
}

/** How long one statement of the seeding may take (the server's own bound is 10 s). */
const SEED_TIMEOUT_MS = 15 * 60_000;

const sqliteStore: Store = {
  name: 'SQLite',
  create: async () => ({ env: {}, drop: async () => undefined }),
  open: (data) => openDatabase({ dataDir: data.dir }),
};

function postgresStore(adminUrl: string): Store {
  return {
    name: 'PostgreSQL',
    async create(label) {
      const name = `runload_bench_scale_${label}_${Date.now()}`;
      const admin = openDatabase({ url: adminUrl, dataDir: os.tmpdir() });
      try {
        await admin.raw(`CREATE DATABASE ${name}`);
      } finally {
        await admin.destroy();
      }
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return {
        env: { RUNLOAD_DATABASE_URL: url.toString() },
        async drop() {
          const again = openDatabase({ url: adminUrl, dataDir: os.tmpdir() });
          await again.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => again.destroy());
        },
      };
    },
    // Seeding a million rows is one statement of minutes, not a request: no 10 s bound on it.
    open: (data) => openDatabase({ url: data.env['RUNLOAD_DATABASE_URL'] ?? null, dataDir: data.dir, queryTimeoutMs: SEED_TIMEOUT_MS }),
  };
}

/** Waiting runs in both databases before anything is measured (a fifth of them other accounts'). */
const QUEUED = 5000;

/** Queues `QUEUED` runs (created in the last minute: within the queue time); returns one in the middle. */
async function queueRuns(db: Knex, accountId: string, appVersionId: string): Promise<string> {
  const others = (await db('accounts').whereNot({ id: accountId }).orderBy('id').limit(19).select('id')).map((r: { id: string }) => r.id);
  const now = Date.now();
  const runs = Array.from({ length: QUEUED }, (_, i) =>
    newQueuedRun({ id: randomUUID(), accountId: i % 5 === 0 && others.length > 0 ? (others[i % others.length] as string) : accountId, appVersionId, createdAt: new Date(now - 60_000 + i), inputs: {} }),
  );
  const repository = new KnexRunRepository(db);
  await Promise.all(runs.map((r) => repository.create(r)));
  // Plans for the queue as it is. (Statistics older than the queue, as autovacuum leaves a large
  // table for a while, made the former self-join nest loops: polls of seconds on PostgreSQL.)
  await db.raw(dialectOf(db) === 'postgres' ? 'ANALYZE runs' : 'ANALYZE');
  return (runs[QUEUED / 2] as { id: string }).id;
}

interface Sized {
  readonly label: string;
  readonly data: PreparedData;
  readonly drop: () => Promise<void>;
  server?: RunloadServer;
  runId?: string;
  readonly poll: number[];
  readonly create: number[];
  /** A run in the middle of the queue (the queue-position plan is read for it). */
  readonly queuedRunId: string;
}

async function seeded(store: Store, label: string, size: number, fakeUrl: string): Promise<Sized> {
  const database = await store.create(label);
  let queuedRunId: string;
  let data: PreparedData;
  try {
    data = await prepareRunload(`scale-${label}`, database.env, fakeUrl);
    const db = store.open(data);
    try {
      await seedHistory(db, { runs: size, assets: size, accountId: data.accountId, appVersionId: data.app });
      queuedRunId = await queueRuns(db, data.accountId, data.app);
    } finally {
      await db.destroy();
    }
  } catch (error) {
    // A database whose seeding failed is not among the sizes the section drops at its end.
    await database.drop().catch(() => undefined);
    throw error;
  }
  return { label, data, drop: database.drop, poll: [], create: [], queuedRunId };
}

const median = (v: readonly number[]) => percentile(v, 50);

/** The plan the database chooses for one statement, on one line. */
async function explain(db: Knex, sql: string, bindings: readonly unknown[]): Promise<string> {
  if (dialectOf(db) === 'postgres') {
    // The statement as pg received it ($1, $2…), sent on a connection of its own with its values.
    type PgConnection = { query(text: string, values: readonly unknown[]): Promise<{ rows: Record<string, string>[] }> };
    const connection = (await db.client.acquireConnection()) as PgConnection;
    try {
      const result = await connection.query(`EXPLAIN ${sql}`, bindings);
      return result.rows.map((r) => (r['QUERY PLAN'] ?? '').trim()).join('; ');
    } finally {
      await db.client.releaseConnection(connection);
    }
  }
  const rows = (await db.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings as Knex.RawBinding[])) as { detail: string }[];
  return rows.map((r) => r.detail).join('; ');
}

/** An index search, never a scan of a whole table nor a sort of what was found. */
function usesIndexes(plan: string, store: Store['name']): boolean {
  const tables = '(runs|assets|gpu_charges|runs_in_flight|gpu_usage_monthly)';
  if (store === 'PostgreSQL') return /Index/.test(plan) && !new RegExp(`Seq Scan on ${tables}\\b`).test(plan) && !/\bSort\b/.test(plan);
  return /SEARCH/.test(plan) && !new RegExp(`\\bSCAN ${tables}\\b`).test(plan) && !/TEMP B-TREE/.test(plan);
}

/** The plans the database chooses for the hot queries, as the repositories issue them. */
async function hotQueryPlans(db: Knex, accountId: string, queuedRunId: string): Promise<{ name: string; plan: string }[]> {
  const runs = new KnexRunRepository(db);
  const queued = await runs.get(queuedRunId);
  if (!queued) throw new Error(`the queued run ${queuedRunId} is missing`);
  const cases: [string, () => Promise<unknown>][] = [
    ['run by id', () => runs.get(queuedRunId)],
    [`queue position (${QUEUED.toLocaleString('en')} runs waiting)`, () => runs.queuePosition(queued)],
    ['GPU seconds in flight', () => runs.estimateInFlightGpuSeconds(accountId)],
    ['GPU seconds used this month', () => {
      const today = new Date();
      return new KnexGpuLedger(db).usedSeconds(accountId, new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1)), new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1)));
    }],
    ['asset by id', () => new KnexAssetRepository(db).get('dddddddd-0000-4000-8000-00000000000a')],
    ['first page of the account’s runs', () => runs.listByAccount(accountId, { limit: 20 })],
  ];
  const plans: { name: string; plan: string }[] = [];
  for (const [name, work] of cases) {
    const captured: { sql: string; bindings: readonly unknown[] }[] = [];
    const listen = (q: { sql: string; bindings?: unknown[] }) => captured.push({ sql: q.sql, bindings: q.bindings ?? [] });
    db.on('query', listen);
    await work();
    db.removeListener('query', listen);
    for (const q of captured) plans.push({ name, plan: await explain(db, q.sql, q.bindings) });
  }
  return plans;
}

async function readPlans(store: Store, s: Sized): Promise<{ name: string; plan: string }[]> {
  const db = store.open(s.data);
  try {
    return await hotQueryPlans(db, s.data.accountId, s.queuedRunId);
  } finally {
    await db.destroy();
  }
}

export async function benchScale(options: { quick: boolean; say: (line: string) => void; fakeUrl: string }): Promise<void> {
  await scaleOn(sqliteStore, options);
  await scaleOn(postgresStore(process.env['RUNLOAD_BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test'), options).catch((error: unknown) =>
    options.say(`- not measured on PostgreSQL: ${(error as Error).message}\n`),
  );
}

async function scaleOn(store: Store, options: { quick: boolean; say: (line: string) => void; fakeUrl: string }): Promise<void> {
  const { say, quick } = options;
  const large = quick ? 100_000 : 1_000_000;
  // Many short alternating rounds: a background load that comes and goes hits both sizes alike.
  const rounds = quick ? 3 : 9;
  const seconds = quick ? 1 : 1.5;
  say(`## 5. Scale of data: ${large.toLocaleString('en')} runs and assets against 1,000 (${store.name})`);
  const started = Date.now();
  const sizes: Sized[] = [];
  try {
    sizes.push(await seeded(store, 'small', 1000, options.fakeUrl));
    sizes.push(await seeded(store, 'large', large, options.fakeUrl));
    const how = store.name === 'SQLite' ? 'recursive-CTE INSERT … SELECT' : 'generate_series INSERT … SELECT, then VACUUM ANALYZE';
    say(`- seeded with ${how} in ${((Date.now() - started) / 1000).toFixed(0)} s; the benchmark's account owns a tenth of the runs and assets, spread over 180 days with GPU charges, the rest belongs to 2,000 other accounts and 100 app versions; both sizes then hold ${QUEUED.toLocaleString('en')} waiting runs (a fifth of them 19 other accounts'), ahead of the polled run`);
    const plans = await readPlans(store, sizes[1] as Sized);
    for (const s of sizes) {
      s.server = await startOn(s.data);
      const res = await fetch(`${s.server.url}/api/v1/apps/${s.data.app}`, { method: 'POST', headers: { ...s.server.auth, 'content-type': 'application/json' }, body: '{"inputs":{}}' });
      s.runId = ((await res.json()) as { run_id: string }).run_id;
    }
    for (let round = 0; round < rounds; round += 1) {
      for (const s of round % 2 === 0 ? sizes : [...sizes].reverse()) {
        const server = s.server as RunloadServer;
        const poll = await sequentialLatency(`${server.url}/api/v1/runs/${s.runId}`, { headers: server.auth }, seconds);
        const create = await sequentialLatency(`${server.url}/api/v1/apps/${server.app}`, { method: 'POST', headers: { ...server.auth, 'content-type': 'application/json' }, body: '{"inputs":{}}' }, seconds);
        s.poll.push(poll.p50);
        s.create.push(create.p50);
      }
    }
    const [small, big] = sizes as [Sized, Sized];
    for (const [what, a, b] of [['poll', small.poll, big.poll], ['create', small.create, big.create]] as const) {
      const ratio = median(b) / median(a);
      const list = (v: readonly number[]) => v.map((x) => x.toFixed(2)).join(' / ');
      say(
        `- ${what} latency p50 (one client, requests back to back, ${rounds} alternating rounds of ${seconds} s; each round's p50): 1,000 rows ${list(a)} ms; ${large.toLocaleString('en')} rows ${list(b)} ms; ratio of the medians ${ratio.toFixed(2)}× (target ≤ 1.2×): ${ratio <= 1.2 ? 'meets the target' : '**misses the target**'}`,
      );
    }
    for (const { name, plan } of plans) {
      say(`- plan of ${name} on the large database: ${usesIndexes(plan, store.name) ? 'uses its index' : '**scans a table or sorts**'}: \`${plan}\``);
    }
  } finally {
    for (const s of sizes) {
      await s.server?.stop();
      await s.drop();
    }
  }
  say('');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { startFakeComfyUI } = await import('@runload/fake-comfyui');
  const fake = await startFakeComfyUI({ executionMs: 0 });
  fake.pause();
  await benchScale({ quick: process.argv.includes('--quick'), say: (l) => process.stdout.write(`${l}\n`), fakeUrl: fake.url });
  await fake.close();
}
