import { Redis } from 'ioredis';

/** A client for limits: short timeouts and no offline queue, so a missing Redis fails fast. */
export function createRedisClient(url: string, options: { commandTimeoutMs?: number } = {}): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    commandTimeout: options.commandTimeoutMs ?? 200,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
    // Commands issued in one turn of the event loop (many requests' limit checks) go in one write.
    enableAutoPipelining: true,
  });
}
