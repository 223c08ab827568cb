/**
 * Fixed-window counters. Windows are aligned to the limiter's own clock's
 * minute or hour (on Redis, the Redis server's clock).
 * @module
 */
import type { WindowPeriod, WindowState } from '../domain/limit-window.js';

export interface WindowSpec {
  /** What the window counts, e.g. `general`, `run-minute`, `run-hour`, `auth-failures`. */
  readonly name: string;
  /** Whose window it is: an account id or a client address. */
  readonly subject: string;
  readonly period: WindowPeriod;
  readonly limit: number;
}

/**
 * What a window counted from `fromMs` to `toMs`, from a durable record, or null when nothing
 * records it: how a limiter made mid-window (a restarted process) starts that window.
 */
export type WindowHistory = (spec: WindowSpec, fromMs: number, toMs: number) => Promise<number> | null;

export interface LimitDecision {
  /** True when every window had room (and, for `consume`, all were counted). */
  readonly allowed: boolean;
  /** One state per requested window, in the order requested. */
  readonly windows: readonly WindowState[];
  /** Whole seconds until the refusing windows reset (at least 1); 0 when allowed. */
  readonly retryAfterSeconds: number;
}

export interface RateLimiter {
  /**
   * Atomically counts one request in every window: all have room and all are counted, or
   * none is counted. Exact under any concurrency.
   */
  consume(windows: readonly WindowSpec[]): Promise<LimitDecision>;
  /** The same decision without counting anything. */
  peek(windows: readonly WindowSpec[]): Promise<LimitDecision>;
  /** Gives back what a successful `consume` counted, to the same windows (no-op once a window has passed). */
  refund(decision: LimitDecision): Promise<void>;
}

export const RATE_LIMITER = Symbol.for('runload.core.RateLimiter');
