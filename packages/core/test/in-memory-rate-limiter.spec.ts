import { expect } from 'chai';
import { FakeClock, InMemoryRateLimiter } from '@runload/core/testing';
import { describeRateLimiterContract } from '@runload/core/contract-tests';

describeRateLimiterContract('in-process', async () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 8, 30, 12, 345));
  return { limiter: new InMemoryRateLimiter(clock), now: () => clock.nowMs(), advance: (ms) => clock.advance(ms) };
});

describe('in-process limiter made mid-window (a restarted server)', () => {
  const hourly = { name: 'run-hour', subject: 'acct', period: 'hour', limit: 5 } as const;
  const general = { name: 'general', subject: 'acct', period: 'minute', limit: 5 } as const;
  const madeAt = Date.UTC(2026, 5, 1, 8, 30, 0);

  it('starts a window open at its making from what history says it counted, and asks once', async () => {
    const clock = new FakeClock(madeAt);
    const asked: [string, number, number][] = [];
    const limiter = new InMemoryRateLimiter(clock, (spec, from, to) => {
      asked.push([spec.name, from, to]);
      return spec.name === 'run-hour' ? Promise.resolve(3) : null;
    });
    const first = await limiter.consume([hourly, general]);
    expect(first.windows.map((w) => [w.name, w.remaining])).to.deep.equal([['run-hour', 1], ['general', 4]]);
    expect((await limiter.consume([hourly])).allowed).to.equal(true);
    const refused = await limiter.consume([hourly]);
    expect(refused.allowed).to.equal(false);
    // The hour from its start to the making, once; the minute began at the making, so is not asked.
    expect(asked).to.deep.equal([['run-hour', Date.UTC(2026, 5, 1, 8, 0, 0), madeAt]]);
  });

  it('admits no more than the limit when many calls race on the first read', async () => {
    const clock = new FakeClock(madeAt);
    let release: (n: number) => void = () => undefined;
    const limiter = new InMemoryRateLimiter(clock, () => new Promise<number>((r) => (release = r)));
    const calls = Array.from({ length: 5 }, () => limiter.consume([hourly]));
    release(3);
    const allowed = (await Promise.all(calls)).filter((d) => d.allowed).length;
    expect(allowed).to.equal(2);
  });

  it('counts a window that begins after its making from zero, without asking', async () => {
    const clock = new FakeClock(madeAt);
    let asked = 0;
    const limiter = new InMemoryRateLimiter(clock, () => ((asked += 1), Promise.resolve(99)));
    clock.advance(3_600_000); // the next hour
    expect((await limiter.consume([hourly])).windows[0]?.remaining).to.equal(4);
    expect(asked).to.equal(0);
  });

  it('asks again after a failed read, and the call that met it fails', async () => {
    const clock = new FakeClock(madeAt + 60_000);
    let calls = 0;
    const limiter = new InMemoryRateLimiter(clock, () => ((calls += 1), calls === 1 ? Promise.reject(new Error('database down')) : Promise.resolve(4)));
    const failed = await limiter.consume([hourly]).then(() => 'admitted', (e: Error) => e.message);
    expect(failed).to.equal('database down');
    expect((await limiter.consume([hourly])).windows[0]?.remaining).to.equal(0);
    expect(calls).to.equal(2);
  });
});
