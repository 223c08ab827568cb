/**
 * Fixed windows in Redis, exact under any number of instances: every decision is one atomic
 * script on the Redis server's clock.
 * @module
 */
import type { Redis } from 'ioredis';
import { PERIOD_MS, type LimitDecision, type RateLimiter, type WindowSpec, type WindowState } from '@runload/core';
import { DECIDE, REFUND } from './scripts.js';

type Scripted = Redis & {
  runloadDecide(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  runloadRefund(numKeys: number, ...args: (string | number)[]): Promise<number>;
};

export interface RedisRateLimiterOptions {
  /** Key prefix, to share a Redis with other data. */
  readonly prefix?: string;
  /** Shifts the Redis clock (tests only: lets a suite move time forward). */
  readonly clockOffsetMs?: () => number;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Scripted;
  private readonly prefix: string;

  constructor(
    redis: Redis,
    private readonly options: RedisRateLimiterOptions = {},
  ) {
    // defineCommand uses EVALSHA and falls back to EVAL on NOSCRIPT, so a flushed script cache is harmless.
    redis.defineCommand('runloadDecide', { lua: DECIDE });
    redis.defineCommand('runloadRefund', { lua: REFUND });
    this.redis = redis as Scripted;
    this.prefix = options.prefix ?? 'runload:rl:';
  }

  consume(windows: readonly WindowSpec[]): Promise<LimitDecision> {
    return this.decide(windows, 'consume');
  }

  peek(windows: readonly WindowSpec[]): Promise<LimitDecision> {
    return this.decide(windows, 'peek');
  }

  async refund(decision: LimitDecision): Promise<void> {
    if (!decision.allowed || decision.windows.length === 0) return;
    const keys = decision.windows.map((w) => this.key(w));
    await this.redis.runloadRefund(keys.length, ...keys, ...decision.windows.map((w) => w.windowStartMs));
  }

  private key(w: { subject: string; name: string }): string {
    return `${this.prefix}{${w.subject}}:${w.name}`;
  }

  private async decide(windows: readonly WindowSpec[], mode: 'consume' | 'peek'): Promise<LimitDecision> {
    if (windows.length === 0) return { allowed: true, windows: [], retryAfterSeconds: 0 };
    const args: (string | number)[] = [mode, this.options.clockOffsetMs?.() ?? 0];
    for (const w of windows) args.push(PERIOD_MS[w.period], w.limit);
    const reply = (await this.redis.runloadDecide(windows.length, ...windows.map((w) => this.key(w)), ...args)).map(Number);
    const allowed = reply[0] === 1;
    const now = reply[1] as number;
    const states: WindowState[] = windows.map((spec, i) => {
      const used = reply[2 + i * 2] as number;
      const start = reply[3 + i * 2] as number;
      const exhausted = used >= spec.limit;
      return {
        name: spec.name,
        subject: spec.subject,
        period: spec.period,
        limit: spec.limit,
        remaining: exhausted ? 0 : Math.max(0, spec.limit - used - (allowed && mode === 'consume' ? 1 : 0)),
        windowStartMs: start,
        resetAt: Math.floor((start + PERIOD_MS[spec.period]) / 1000),
        exhausted,
      };
    });
    const ends = states.filter((s) => s.exhausted).map((s) => s.windowStartMs + PERIOD_MS[s.period]);
    return { allowed, windows: states, retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((Math.max(...ends) - now) / 1000)) };
  }
}
