/**
 * A running runload: the database opened and migrated, the container built, the dispatcher
 * started (for the server), and what must be closed when it stops. The CLI and the server both
 * start here.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Container } from 'inversify';
import { Dispatcher, RUNLOAD_API, RunLifecycle, SystemClock, type Clock, type Executor, type RunloadApi } from '@runload/core';
import { InMemoryRateLimiter } from '@runload/core/in-process';
import { ComfyUiExecutor, ComfyUiNodeCatalog } from '@runload/gpu-adapter';
import { createRedisClient, FailoverRateLimiter, RedisRateLimiter, RedisWorkSignal, type Redis } from '@runload/redis-limiter';
import { checkDatabase, migrate, openDatabase, type Database } from '@runload/storage-adapter';
import type { RunloadConfig } from './config.js';
import { buildContainer } from './container.js';
import { createLogger } from './log.js';
import { PORTS } from './tokens.js';

export interface RuntimeOptions {
  /** Start the dispatcher that sends runs to the backends (the server does; the CLI does not). */
  readonly dispatch: boolean;
  /** Tests replace the clock to control limit windows. */
  readonly clock?: Clock;
  /** Tests and embedders may bring their own executor. */
  readonly executor?: Executor;
}

export type HealthReport = {
  readonly ok: boolean;
  readonly database: { ok: boolean; detail?: string };
  readonly limiter: { mode: string };
  readonly backends: { available: boolean; backends: readonly unknown[] };
  readonly dispatcher: { running: boolean; in_flight: number };
};

export interface Runtime {
  readonly api: RunloadApi;
  readonly container: Container;
  readonly db: Database;
  readonly executor: Executor;
  /** Formidable's scratch directory, inside the data directory. */
  readonly uploadDir: string;
  health(): Promise<HealthReport>;
  close(): Promise<void>;
}

function ownerName(config: RunloadConfig): string {
  if (config.instanceId) return config.instanceId;
  // One SQLite file serves one instance: a stable name lets a restarted server reclaim its runs at once.
  return config.databaseUrl ? `instance-${randomUUID()}` : `local:${config.dataDir}`;
}

export async function openRuntime(config: RunloadConfig, options: RuntimeOptions): Promise<Runtime> {
  const log = createLogger('runtime');
  const db = openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const uploadDir = path.join(config.dataDir, 'uploads');
  mkdirSync(uploadDir, { recursive: true });
  const comfy = options.executor ? null : new ComfyUiExecutor({ urls: config.comfyUiUrls, log: createLogger('comfyui') });
  const executor = options.executor ?? (comfy as ComfyUiExecutor);
  if (comfy && options.dispatch) await comfy.probe();
  const clock = options.clock ?? new SystemClock();
  const redisClients: Redis[] = [];
  let failover: FailoverRateLimiter | null = null;
  let workSignal: RedisWorkSignal | null = null;
  if (config.redisUrl) {
    const redisLog = createLogger('redis');
    const client = (timeout?: number) => {
      const c = createRedisClient(config.redisUrl as string, timeout ? { commandTimeoutMs: timeout } : {});
      c.on('error', (error: Error) => redisLog('warn', 'redis connection', { error: error.message }));
      redisClients.push(c);
      return c;
    };
    // A Redis that is down fails at once (no offline queue); the timeout only catches one that hangs,
    // and is long enough that a busy Redis is never mistaken for a missing one.
    const limits = client(2000);
    failover = new FailoverRateLimiter(new RedisRateLimiter(limits), new InMemoryRateLimiter(clock), {
      timeoutMs: 2000,
      recheckMs: 1000,
      ping: () => limits.ping(),
      log: redisLog,
    });
    workSignal = new RedisWorkSignal(client(), client());
  }
  const container = buildContainer(config, {
    db,
    executor,
    clock,
    ...(failover ? { limiter: failover } : {}),
    ...(workSignal ? { workSignal } : {}),
    nodeCatalog: new ComfyUiNodeCatalog(config.comfyUiUrls, 3000),
  });
  const api = container.get<RunloadApi>(RUNLOAD_API);
  const ports = container.get<PORTS>(PORTS);
  let dispatcher: Dispatcher | null = null;
  if (options.dispatch) {
    const lifecycle = new RunLifecycle(ports.runs, ports.assets, ports.blobs, ports.gpuLedger, ports.workSignal, ports.clock);
    dispatcher = new Dispatcher(
      { runs: ports.runs, appVersions: ports.appVersions, assets: ports.assets, blobs: ports.blobs, executor, lifecycle, signal: ports.workSignal, clock: ports.clock },
      {
        owner: ownerName(config),
        leaseMs: config.leaseSeconds * 1000,
        depth: config.dispatchDepth,
        maxQueueSeconds: config.limits.max_queue_seconds,
        maxRunSeconds: config.limits.max_run_seconds,
        sweepMs: Math.min(2000, (config.leaseSeconds * 1000) / 3),
        backendGraceMs: config.leaseSeconds * 1000,
        log: createLogger('dispatcher'),
      },
    );
    await dispatcher.start();
  }
  let closed = false;
  return {
    api,
    container,
    db,
    executor,
    uploadDir,
    async health() {
      const [database, backends] = await Promise.all([checkDatabase(db), executor.health()]);
      return {
        ok: database.ok,
        database,
        limiter: failover ? failover.health() : { mode: 'in-process' },
        backends,
        dispatcher: { running: dispatcher !== null, in_flight: dispatcher?.inFlight() ?? 0 },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await dispatcher?.stop();
      } catch (error) {
        log('error', 'dispatcher did not stop cleanly', { error: String(error) });
      }
      await executor.close();
      failover?.close();
      for (const c of redisClients) c.disconnect();
      await db.destroy();
    },
  };
}
