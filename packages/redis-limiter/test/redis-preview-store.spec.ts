import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describePreviewStoreContract } from '@runload/core/contract-tests';
import { RedisPreviewStore } from '@runload/redis-limiter';
import { dropPrefix, redisUrl } from './redis.js';

const url = redisUrl();
if (!url) {
  describe('Redis preview store', () => it('needs RUNLOAD_TEST_REDIS_URL'));
} else {
  describePreviewStoreContract('redis', async () => {
    const prefix = `runload-test:${randomBytes(4).toString('hex')}:preview:`;
    const [a, b] = [new Redis(url), new Redis(url)];
    return {
      store: new RedisPreviewStore(a, prefix),
      peer: new RedisPreviewStore(b, prefix),
      teardown: async () => {
        await dropPrefix(a, prefix);
        a.disconnect();
        b.disconnect();
      },
    };
  }, { shared: true });
}
