import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { WINDOW, type RateLimiter, type WindowHistory, type WindowSpec } from '@runload/core';
import { FakeClock, InMemoryRateLimiter, waitFor } from '@runload/core/testing';
import { describeRateLimiterContract } from '@runload/core/contract-tests';
import { createRedisClient, FailoverRateLimiter, RedisRateLimiter } from '@runload/redis-limiter';
import { dropPrefix, redisNowMs, redisUrl } from './redis.js';

const url = redisUrl();

if (!url) {
  describe('Redis rate limiter', () => it('needs RUNLOAD_TEST_REDIS_URL'));
} else {
  describeRateLimiterContract('redis', async () => {
    const redis = new Redis(url);
    const prefix = `runload-test:${randomBytes(4).toString('hex')}:`;
    let offset = 0;
    const limiter = new RedisRateLimiter(redis, { prefix, clockOffsetMs: () => offset });
    return {
      limiter,
      clockDriftMs: 300,
      now: async () => (await redisNowMs(redis)) + offset,
      advance: (ms) => {
        offset += ms;
      },
      teardown: async () => {
        await dropPrefix(redis, prefix);
        redis.disconnect();
      },
    };
  });

  describe('Redis rate limiter across instances', function () {
    this.timeout(20_000);
    const prefix = `runload-test:${randomBytes(4).toString('hex')}:`;
    const clients = [new Redis(url), new Redis(url), new Redis(url)];
    after(async () => {
      await dropPrefix(clients[0] as Redis, prefix);
      for (const c of clients) c.disconnect();
    });

    it('admits exactly 10 of 300 concurrent calls from three instances', async () => {
      const limiters = clients.map((c) => new RedisRateLimiter(c, { prefix }));
      const window: WindowSpec = { name: 'run-minute', subject: 'acct-3', period: 'minute', limit: 10 };
      const now = await redisNowMs(clients[0] as Redis);
      // Not synchronisation: keeps the 300 calls inside one fixed minute window (the window under test).
      if (now % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 60_000 - (now % 60_000) + 50));
      const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => (limiters[i % 3] as RedisRateLimiter).consume([window])));
      expect(decisions.filter((d) => d.allowed)).to.have.length(10);
    });

    it('stays correct after the script cache is flushed', async () => {
      const limiter = new RedisRateLimiter(clients[1] as Redis, { prefix });
      const window: WindowSpec = { name: 'general', subject: 'flush', period: 'hour', limit: 5 };
      await limiter.consume([window]);
      await (clients[2] as Redis).script('FLUSH');
      const d = await limiter.consume([window]);
      expect(d.allowed).to.equal(true);
      expect(d.windows[0]?.remaining).to.equal(3);
    });
  });
}

describe('FailoverRateLimiter', function () {
  this.timeout(10_000);
  it('answers from the local limiter within 250 ms when Redis is unreachable, and says so', async () => {
    const dead = createRedisClient('redis://127.0.0.1:1', { commandTimeoutMs: 100 });
    dead.on('error', () => undefined);
    const logs: string[] = [];
    const limiter = new FailoverRateLimiter(new RedisRateLimiter(dead), () => new InMemoryRateLimiter(new FakeClock()), {
      timeoutMs: 100,
      recheckMs: 50,
      ping: () => dead.ping(),
      log: (_l, m) => logs.push(m),
    });
    const started = Date.now();
    const d = await limiter.consume([{ name: 'general', subject: 'x', period: 'minute', limit: 2 }]);
    expect(Date.now() - started).to.be.below(250);
    expect(d.allowed).to.equal(true);
    expect(limiter.health().mode).to.equal('local');
    expect(logs).to.have.length(1);
    limiter.close();
    dead.disconnect();
  });

  it('starts the run windows of each outage from what the runs written say by then, not from zero', async () => {
    const clock = new FakeClock(Date.UTC(2026, 6, 1, 11, 6, 30));
    // Stands in for Redis while it answers.
    const redis = new InMemoryRateLimiter(clock);
    let up = false;
    const shared: RateLimiter = {
      consume: async (w) => (up ? redis.consume(w) : Promise.reject(new Error('down'))),
      peek: async (w) => (up ? redis.peek(w) : Promise.reject(new Error('down'))),
      refund: async (d) => (up ? redis.refund(d) : Promise.reject(new Error('down'))),
    };
    // The runs the database holds in each window asked about, as the server's history reads them.
    let written = 10;
    const asked: number[] = [];
    const history: WindowHistory = (spec, _from, toMs) => {
      if (spec.name !== WINDOW.runMinute) return null;
      asked.push(toMs);
      return Promise.resolve(written);
    };
    const limiter = new FailoverRateLimiter(shared, () => new InMemoryRateLimiter(clock, history), {
      timeoutMs: 100,
      recheckMs: 20,
      ping: async () => (up ? 'PONG' : Promise.reject(new Error('down'))),
      log: () => undefined,
    });
    const minute: WindowSpec = { name: WINDOW.runMinute, subject: 'acct', period: 'minute', limit: 10 };
    const first = await limiter.consume([minute]);
    expect(limiter.health().mode).to.equal('local');
    expect(first.allowed, 'the 10 runs written this minute still count').to.equal(false);
    expect(asked, 'read as of the fall-back').to.deep.equal([clock.nowMs()]);

    up = true;
    await waitFor(() => limiter.health().mode === 'redis', 'the limiter to go back to Redis once it answers');
    clock.advance(60_000);
    up = false;
    written = 9;
    const second = await limiter.consume([minute]);
    expect([second.allowed, second.windows[0]?.remaining], 'a new outage reads the new minute: 9 written, 1 left').to.deep.equal([true, 0]);
    expect((await limiter.consume([minute])).allowed).to.equal(false);
    expect(asked).to.have.length(2);
    limiter.close();
  });

  if (url) {
    it('returns to the shared limiter when Redis answers again', async () => {
      let up = false;
      const redis = new Redis(url);
      const limiter = new FailoverRateLimiter(
        {
          consume: async (w) => {
            if (!up) throw new Error('down');
            return new RedisRateLimiter(redis, { prefix: 'runload-test:failover:' }).consume(w);
          },
          peek: async () => {
            throw new Error('unused');
          },
          refund: async () => undefined,
        },
        () => new InMemoryRateLimiter(new FakeClock()),
        { timeoutMs: 100, recheckMs: 20, ping: async () => (up ? redis.ping() : Promise.reject(new Error('down'))), log: () => undefined },
      );
      await limiter.consume([{ name: 'general', subject: 'y', period: 'minute', limit: 5 }]);
      expect(limiter.health().mode).to.equal('local');
      up = true;
      await waitFor(() => limiter.health().mode === 'redis', 'the limiter to go back to Redis once it answers');
      limiter.close();
      await dropPrefix(redis, 'runload-test:failover:');
      redis.disconnect();
    });
  }
});
