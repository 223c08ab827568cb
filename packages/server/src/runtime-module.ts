/**
 * The runtime as the container resolves it: the API, the health report behind `/healthz`, the
 * HTTP server on demand, and a close that deactivates everything in order.
 * @module
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ContainerModule, type Container } from 'inversify';
import { EXECUTOR, RATE_LIMITER, RUNLOAD_API, type Dispatcher, type Executor, type RateLimiter, type RunloadApi } from '@runload/core';
import { HTTP_HEALTH, HTTP_SERVER } from '@runload/http-adapter/module';
import { FailoverRateLimiter } from '@runload/redis-limiter';
import { checkDatabase, type Database } from '@runload/storage-adapter';
import { DATABASE } from '@runload/storage-adapter/module';
import type { RunloadConfig } from './config.js';
import type { HealthReport, Runtime } from './runtime.js';
import { shutdown } from './shutdown.js';
import { CONFIG, DISPATCHER, RUNTIME } from './tokens.js';

const optional = (serviceIdentifier: symbol) => ({ optional: true as const, serviceIdentifier });

export function runtimeModule(container: Container): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(HTTP_HEALTH)
      .toResolvedValue(
        (db: Database, executor: Executor, limiter: RateLimiter, dispatcher?: Dispatcher) => async (): Promise<HealthReport> => {
          const [database, backends] = await Promise.all([checkDatabase(db), executor.health()]);
          return {
            ok: database.ok,
            database,
            limiter: limiter instanceof FailoverRateLimiter ? limiter.health() : { mode: 'in-process' },
            backends,
            dispatcher: { running: dispatcher !== undefined, in_flight: dispatcher?.inFlight() ?? 0 },
          };
        },
        [DATABASE, EXECUTOR, RATE_LIMITER, optional(DISPATCHER)],
      )
      .inSingletonScope();
    bind<Runtime>(RUNTIME)
      .toResolvedValue(
        (config: RunloadConfig, api: RunloadApi, db: Database, executor: Executor, health: () => Promise<HealthReport>) => {
          const uploadDir = path.join(config.dataDir, 'uploads');
          mkdirSync(uploadDir, { recursive: true });
          let closing: Promise<void> | null = null;
          return {
            api,
            container,
            db,
            executor,
            uploadDir,
            health,
            listen: () => container.getAsync(HTTP_SERVER),
            close: () => (closing ??= shutdown(container)),
          };
        },
        [CONFIG, RUNLOAD_API, DATABASE, EXECUTOR, HTTP_HEALTH],
      )
      .inSingletonScope();
  });
}
