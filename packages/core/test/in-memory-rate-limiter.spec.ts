import { describeRateLimiterContract, FakeClock, InMemoryRateLimiter } from '@runload/core/testing';

describeRateLimiterContract('in-process', async () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 8, 30, 12, 345));
  return { limiter: new InMemoryRateLimiter(clock), now: () => clock.nowMs(), advance: (ms) => clock.advance(ms) };
});
