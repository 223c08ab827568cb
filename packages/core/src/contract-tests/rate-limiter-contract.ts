/** The contract of RateLimiter (fixed windows, atomic across instances), run by the in-process and the Redis limiter. */
import { expect } from 'chai';
import { PERIOD_MS } from '../domain/limits.js';
import type { RateLimiter, WindowSpec } from '../ports/rate-limiter.js';

export interface RateLimiterFixture {
  readonly limiter: RateLimiter;
  /** The limiter's clock now (epoch ms). */
  now(): Promise<number> | number;
  /** Moves the limiter's clock forward. */
  advance(ms: number): Promise<void> | void;
  /** For a limiter on a real clock (Redis TIME): how far the clock may move during one check. */
  readonly clockDriftMs?: number;
  teardown?(): Promise<void>;
}

let subjects = 0;

export function describeRateLimiterContract(name: string, setup: () => Promise<RateLimiterFixture>): void {
  describe(`rate limiter contract: ${name}`, function () {
    this.timeout(20_000);
    let f: RateLimiterFixture;
    let subject: string;
    beforeEach(async () => {
      f = await setup();
      subjects += 1;
      subject = `subject-${process.pid}-${Date.now()}-${subjects}`;
    });
    afterEach(async () => f.teardown?.());

    const minute = (limit: number, s = subject): WindowSpec => ({ name: 'general', subject: s, period: 'minute', limit });
    const hour = (limit: number, s = subject): WindowSpec => ({ name: 'run-hour', subject: s, period: 'hour', limit });

    /** Puts the clock at `offset` ms into a fresh minute (or hour). */
    async function alignTo(period: 'minute' | 'hour', offset: number): Promise<number> {
      const now = await f.now();
      const size = PERIOD_MS[period];
      const next = Math.floor(now / size) * size + size;
      await f.advance(next + offset - now);
      return next;
    }

    it('counts down, refuses the (limit+1)th with remaining 0, and says when to retry', async () => {
      const start = await alignTo('minute', 15_000);
      for (let i = 1; i <= 3; i += 1) {
        const d = await f.limiter.consume([minute(3)]);
        expect(d.allowed).to.equal(true);
        expect(d.windows[0]).to.include({ remaining: 3 - i, limit: 3, exhausted: false, resetAt: (start + 60_000) / 1000 });
        expect(d.retryAfterSeconds).to.equal(0);
      }
      const refused = await f.limiter.consume([minute(3)]);
      expect(refused.allowed).to.equal(false);
      expect(refused.windows[0]).to.include({ remaining: 0, exhausted: true });
      expect(refused.retryAfterSeconds).to.equal(45);
    });

    it('opens a new window exactly at the minute boundary', async () => {
      const start = await alignTo('minute', 0);
      const drift = f.clockDriftMs ?? 0;
      await f.limiter.consume([minute(1)]);
      await f.advance(59_999 - drift);
      expect((await f.limiter.consume([minute(1)])).allowed).to.equal(false);
      await f.advance(1 + drift);
      const next = await f.limiter.consume([minute(1)]);
      expect(next.allowed).to.equal(true);
      expect(next.windows[0]?.resetAt).to.equal((start + 120_000) / 1000);
    });

    it('opens a new window exactly at the hour boundary', async () => {
      await alignTo('hour', 0);
      const drift = f.clockDriftMs ?? 0;
      await f.limiter.consume([hour(1)]);
      await f.advance(3_599_999 - drift);
      expect((await f.limiter.consume([hour(1)])).allowed).to.equal(false);
      await f.advance(1 + drift);
      expect((await f.limiter.consume([hour(1)])).allowed).to.equal(true);
    });

    it('is atomic across windows: a refused hour leaves the minute uncounted', async () => {
      await alignTo('minute', 1000);
      await f.limiter.consume([minute(10), hour(1)]);
      const refused = await f.limiter.consume([minute(10), hour(1)]);
      expect(refused.allowed).to.equal(false);
      expect(refused.windows.map((w) => w.exhausted)).to.deep.equal([false, true]);
      const peek = await f.limiter.peek([minute(10)]);
      expect(peek.windows[0]?.remaining).to.equal(9);
    });

    it('peeks without counting, refunds what it counted, and keeps subjects and names apart', async () => {
      await alignTo('minute', 1000);
      expect((await f.limiter.peek([minute(2)])).windows[0]?.remaining).to.equal(2);
      const d = await f.limiter.consume([minute(2)]);
      await f.limiter.refund(d);
      expect((await f.limiter.peek([minute(2)])).windows[0]?.remaining).to.equal(2);
      await f.limiter.consume([minute(1)]);
      expect((await f.limiter.consume([minute(1, `${subject}-other`)])).allowed).to.equal(true);
      expect((await f.limiter.consume([{ ...minute(1), name: 'run-minute' }])).allowed).to.equal(true);
    });

    it('refuses everything at a limit of 0', async () => {
      const d = await f.limiter.consume([minute(0)]);
      expect(d.allowed).to.equal(false);
      expect(d.windows[0]?.remaining).to.equal(0);
    });

    it('admits exactly the limit under 200 concurrent calls', async () => {
      await alignTo('minute', 1000);
      const decisions = await Promise.all(Array.from({ length: 200 }, () => f.limiter.consume([minute(10), hour(100)])));
      expect(decisions.filter((d) => d.allowed)).to.have.length(10);
      expect((await f.limiter.peek([hour(100)])).windows[0]?.remaining).to.equal(90);
    });
  });
}
