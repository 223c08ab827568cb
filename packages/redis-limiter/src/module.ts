/**
 * Limits, quotas and work notifications shared by every instance through Redis, as an inversify
 * module. The limiter falls back to counting in this process while Redis is unreachable. Each part
 * registers its stop with the container's `Teardown` (bound to `TEARDOWN`) when made: the limiter
 * stops rechecking, then each client disconnects.
 * @module
 */
import { ContainerModule } from 'inversify';
import { CLOCK, LOGGER, PREVIEW_STORE, RATE_LIMITER, RUN_REPOSITORY, runWindowHistory, stopAtTeardown, WORK_SIGNAL, type Clock, type Logger, type RunRepository } from '@runload/core';
import { InMemoryRateLimiter } from '@runload/core/in-process';
import type { Redis } from 'ioredis';
import { createRedisClient } from './create-redis-client.js';
import { FailoverRateLimiter } from './failover-rate-limiter.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { RedisWorkSignal } from './redis-work-signal.js';
import { RedisPreviewStore } from './redis-preview-store.js';

export const REDIS_LIMITS_CLIENT = Symbol.for('runload.redis.LimitsClient');
export const REDIS_PUBLISHER = Symbol.for('runload.redis.Publisher');
export const REDIS_SUBSCRIBER = Symbol.for('runload.redis.Subscriber');
/** Previews have their own connection: a megabyte image never queues ahead of a limit check. */
export const REDIS_PREVIEWS_CLIENT = Symbol.for('runload.redis.PreviewsClient');

export interface RedisModuleOptions {
  /** Put before every key and channel (`runload:`): deployments sharing one Redis set different ones. */
  readonly prefix?: string;
}

export function redisModule(url: string, options: RedisModuleOptions = {}): ContainerModule {
  const prefix = options.prefix ?? 'runload:';
  return new ContainerModule(({ bind }) => {
    const client = (token: symbol, name: string, commandTimeoutMs?: number) => {
      bind<Redis>(token)
        .toResolvedValue((log: Logger) => {
          const c = createRedisClient(url, commandTimeoutMs ? { commandTimeoutMs } : {});
          c.on('error', (error: Error) => log('warn', 'redis connection', { error: error.message }));
          return c;
        }, [LOGGER])
        .inSingletonScope()
        .onActivation(stopAtTeardown(name, (c: Redis) => c.disconnect()));
    };
    // A Redis that is down fails at once (no offline queue); the timeout only catches one that hangs,
    // and is long enough that a busy Redis is never mistaken for a missing one.
    client(REDIS_LIMITS_CLIENT, 'redis limits client', 2000);
    client(REDIS_PUBLISHER, 'redis publisher');
    client(REDIS_SUBSCRIBER, 'redis subscriber');
    client(REDIS_PREVIEWS_CLIENT, 'redis previews client', 2000);
    bind<FailoverRateLimiter>(RATE_LIMITER)
      .toResolvedValue(
        (limits: Redis, clock: Clock, log: Logger, runs: RunRepository) =>
          // The local limiter of an outage starts the run windows from the runs written in them
          // (as a restarted in-process limiter does), not from zero.
          new FailoverRateLimiter(new RedisRateLimiter(limits, { prefix: `${prefix}rl:` }), () => new InMemoryRateLimiter(clock, runWindowHistory(runs)), {
            timeoutMs: 2000,
            recheckMs: 1000,
            ping: () => limits.ping(),
            log,
          }),
        [REDIS_LIMITS_CLIENT, CLOCK, LOGGER, RUN_REPOSITORY],
      )
      .inSingletonScope()
      .onActivation(stopAtTeardown('rate limiter', (limiter: FailoverRateLimiter) => limiter.close()));
    bind(WORK_SIGNAL)
      .toResolvedValue((publisher: Redis, subscriber: Redis) => new RedisWorkSignal(publisher, subscriber, `${prefix}work`), [REDIS_PUBLISHER, REDIS_SUBSCRIBER])
      .inSingletonScope();
    // Live previews.
    bind(PREVIEW_STORE)
      .toResolvedValue((previews: Redis) => new RedisPreviewStore(previews, `${prefix}preview:`), [REDIS_PREVIEWS_CLIENT])
      .inSingletonScope();
  });
}
