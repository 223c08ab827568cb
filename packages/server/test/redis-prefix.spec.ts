/**
 * Deployments sharing one Redis keep apart by RUNLOAD_REDIS_PREFIX: their limits are counted under
 * their own keys and their notifications travel on their own channels (pub/sub ignores the URL's
 * database number, so only a prefix separates them).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { RATE_LIMITER, WORK_SIGNAL, type RateLimiter, type WorkSignal } from '@runload/core';
import { InMemoryExecutor, waitFor } from '@runload/core/testing';
import { createRedisClient, type RedisWorkSignal } from '@runload/redis-limiter';
import { buildContainer, loadConfig, shutdown } from '@runload/server';
import { REPO_ROOT, tempDataDir } from './processes.js';

const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if (!redisUrl && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_REDIS_URL');

describe('RUNLOAD_REDIS_PREFIX', function () {
  this.timeout(30_000);
  if (!redisUrl) return void it('needs RUNLOAD_TEST_REDIS_URL');
  const url = redisUrl;
  const run = randomBytes(4).toString('hex');
  const [A, B] = [`rltest-${run}-a:`, `rltest-${run}-b:`];
  const data = tempDataDir();
  const containers: ReturnType<typeof buildContainer>[] = [];
  const redis = createRedisClient(redisUrl, { commandTimeoutMs: 5000 });
  redis.on('error', () => undefined);
  before(async () => {
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  });
  after(async () => {
    for (const c of containers) await shutdown(c);
    for (const key of await redis.keys(`rltest-${run}-*`)) await redis.del(key);
    redis.disconnect();
    data.remove();
  });

  const instance = (prefix: string) => {
    const config = loadConfig({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_REDIS_URL: url, RUNLOAD_REDIS_PREFIX: prefix, RUNLOAD_LOG_LEVEL: 'silent' }, REPO_ROOT);
    const container = buildContainer(config, { dispatch: false, executor: new InMemoryExecutor() });
    containers.push(container);
    return container;
  };

  it('counts limits under its own keys', async () => {
    const limiter = await instance(A).getAsync<RateLimiter>(RATE_LIMITER);
    // Until its Redis connection is up, a limiter counts in its own process: count until Redis has it.
    await waitFor(async () => {
      await limiter.consume([{ subject: 'acct-1', name: 'general', limit: 100, period: 'minute' }]);
      return (await redis.keys(`${A}*`)).length > 0;
    }, 'a count in Redis under the prefix', { timeoutMs: 5000, intervalMs: 50 });
    expect(await redis.keys(`${B}*`)).to.deep.equal([]);
    expect(await redis.keys('runload:rl:{acct-1}*')).to.deep.equal([]);
  });

  it('hears only the instances of its own deployment', async () => {
    const [senderA, peerA, peerB, senderB] = await Promise.all([A, A, B, B].map((p) => instance(p).getAsync<WorkSignal>(WORK_SIGNAL)));
    await Promise.all([senderA, peerA, peerB, senderB].map((s) => (s as RedisWorkSignal).ready()));
    const heardA: string[] = [];
    const heardB: string[] = [];
    peerA!.subscribe((reason) => heardA.push(reason));
    peerB!.subscribe((reason) => heardB.push(reason));
    senderA!.notify(`from-a-${run}`);
    await waitFor(() => heardA.includes(`from-a-${run}`), 'the notification within deployment A', { timeoutMs: 5000 });
    // Sent after A's message had reached Redis's subscribers: had B's peer been one, it would have it first.
    senderB!.notify(`from-b-${run}`);
    await waitFor(() => heardB.includes(`from-b-${run}`), 'the notification within deployment B', { timeoutMs: 5000 });
    expect(heardB).to.not.include(`from-a-${run}`);
    expect(heardA).to.not.include(`from-b-${run}`);
  });

  it('refuses a prefix that is not a plain name, in one line', () => {
    expect(() => loadConfig({ RUNLOAD_REDIS_PREFIX: 'a{b}' }, REPO_ROOT)).to.throw('RUNLOAD_REDIS_PREFIX must be 1 to 64 letters, digits or ":_.-", got "a{b}"');
    expect(loadConfig({}, REPO_ROOT).redisPrefix).to.equal('runload:');
  });
});
