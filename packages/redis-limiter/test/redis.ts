/** The Redis for tests (RUNLOAD_TEST_REDIS_URL); with CI=true a missing one fails the run. */
import { Redis } from 'ioredis';

export function redisUrl(): string | null {
  const url = process.env['RUNLOAD_TEST_REDIS_URL'] ?? null;
  if (!url && process.env['CI'] === 'true') throw new Error('CI=true but RUNLOAD_TEST_REDIS_URL is not set: the Redis suites must run in CI');
  return url;
}

export async function redisNowMs(redis: Redis): Promise<number> {
  const [s, us] = (await redis.time()) as [string | number, string | number];
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Removes every key under a test prefix. */
export async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = (await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)) as [string, string[]];
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
