import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describeWorkSignalContract } from '@runload/core/contract-tests';
import { createRedisClient, RedisWorkSignal } from '@runload/redis-limiter';
import { redisUrl } from './redis.js';

const url = redisUrl();
if (!url) {
  describe('Redis work signal', () => it('needs RUNLOAD_TEST_REDIS_URL'));
} else {
  describeWorkSignalContract('redis pub/sub', async () => {
    const channel = `runload-test:${randomBytes(4).toString('hex')}`;
    // Clients as the server makes them: no offline queue, so a command sent before the connection is up is refused.
    const clients = [createRedisClient(url), createRedisClient(url), createRedisClient(url), createRedisClient(url)];
    // Errors of a client disconnected while it connects (at teardown) are not this test's subject.
    for (const client of clients) client.on('error', () => undefined);
    const [a, b, c, d] = clients as [Redis, Redis, Redis, Redis];
    const [signal, peer] = [new RedisWorkSignal(a, b, channel), new RedisWorkSignal(c, d, channel)];
    return {
      signal,
      peer,
      ready: async () => void (await Promise.all([signal.ready(), peer.ready()])),
      teardown: async () => {
        for (const client of clients) client.disconnect();
      },
    };
  }, { shared: true });
}
