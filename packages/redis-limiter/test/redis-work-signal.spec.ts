import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describeWorkSignalContract } from '@runload/core/contract-tests';
import { RedisWorkSignal } from '@runload/redis-limiter';
import { redisUrl } from './redis.js';

const url = redisUrl();
if (!url) {
  describe('Redis work signal', () => it('needs RUNLOAD_TEST_REDIS_URL'));
} else {
  describeWorkSignalContract('redis pub/sub', async () => {
    const channel = `runload-test:${randomBytes(4).toString('hex')}`;
    const clients = [new Redis(url), new Redis(url), new Redis(url), new Redis(url)];
    const [a, b, c, d] = clients as [Redis, Redis, Redis, Redis];
    return {
      signal: new RedisWorkSignal(a, b, channel),
      peer: new RedisWorkSignal(c, d, channel),
      teardown: async () => {
        for (const client of clients) client.disconnect();
      },
    };
  }, { shared: true });
}
