/**
 * What `/healthz` reports, as a module: the database, the limiter's mode, the backends and, on a
 * serving instance, the dispatcher.
 * @module
 */
import { ContainerModule } from 'inversify';
import { EXECUTOR, RATE_LIMITER, type Dispatcher, type Executor, type RateLimiter } from '@runload/core';
import { HTTP_HEALTH } from '@runload/http-adapter/module';
import { FailoverRateLimiter } from '@runload/redis-limiter';
import { checkDatabase, type Database } from '@runload/storage-adapter';
import { DATABASE } from '@runload/storage-adapter/module';
import { DISPATCHER } from './tokens.js';

export type HealthReport = {
  readonly ok: boolean;
  readonly database: { ok: boolean; detail?: string };
  readonly limiter: { mode: string };
  readonly backends: { available: boolean; backends: readonly unknown[] };
  readonly dispatcher: { running: boolean; in_flight: number };
};

export function healthModule(): ContainerModule {
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
        [DATABASE, EXECUTOR, RATE_LIMITER, { optional: true, serviceIdentifier: DISPATCHER }],
      )
      .inSingletonScope();
  });
}
