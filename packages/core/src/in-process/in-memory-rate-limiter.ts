/**
 * Fixed-window counters in this process. The standalone server's default limiter: exact within
 * one process (each decision runs to completion before another starts, as it never awaits
 * midway). Windows that began before the limiter was made (a restarted server) start from what
 * `history` says they counted, where it knows (the run windows, from the runs written).
 * @module
 */
import { PERIOD_MS, windowStart } from '../domain/limits.js';
import type { Clock } from '../ports/clock.js';
import type { WindowState } from '../domain/limit-window.js';
import type { LimitDecision, RateLimiter, WindowHistory, WindowSpec } from '../ports/rate-limiter.js';

export class InMemoryRateLimiter implements RateLimiter {
  private readonly counts = new Map<string, { count: number; endsAt: number }>();
  /** The windows open when this limiter was made, each read once from `history`. */
  private readonly recalled = new Map<string, { done: Promise<void>; endsAt: number }>();
  private readonly madeAtMs: number;
  private lastSweep = 0;

  constructor(
    private readonly clock: Clock,
    private readonly history?: WindowHistory,
  ) {
    this.madeAtMs = clock.nowMs();
  }

  async consume(windows: readonly WindowSpec[]): Promise<LimitDecision> {
    await this.recall(windows);
    return this.decide(windows, true);
  }

  async peek(windows: readonly WindowSpec[]): Promise<LimitDecision> {
    await this.recall(windows);
    return this.decide(windows, false);
  }

  async refund(decision: LimitDecision): Promise<void> {
    if (!decision.allowed) return;
    for (const w of decision.windows) {
      const entry = this.counts.get(key(w.name, w.subject, w.period, w.windowStartMs));
      if (entry && entry.count > 0) entry.count -= 1;
    }
  }

  /**
   * Adds to each window that began before this limiter what `history` says it counted by then, once
   * per window; calls wait for that first read, then decide without awaiting, as always.
   */
  private async recall(windows: readonly WindowSpec[]): Promise<void> {
    if (!this.history) return;
    const now = this.clock.nowMs();
    const waits: Promise<void>[] = [];
    for (const spec of windows) {
      const start = windowStart(spec.period, now);
      if (start >= this.madeAtMs) continue; // counted here from its first call
      const k = key(spec.name, spec.subject, spec.period, start);
      let recalled = this.recalled.get(k);
      if (!recalled) {
        const end = start + PERIOD_MS[spec.period];
        const counted = this.history(spec, start, this.madeAtMs);
        if (counted === null) continue;
        const done = counted.then(
          (n) => {
            const entry = this.counts.get(k) ?? { count: 0, endsAt: end };
            entry.count += n;
            this.counts.set(k, entry);
          },
          (error: unknown) => {
            this.recalled.delete(k); // the next call asks again
            throw error;
          },
        );
        recalled = { done, endsAt: end };
        this.recalled.set(k, recalled);
      }
      waits.push(recalled.done);
    }
    if (waits.length > 0) await Promise.all(waits);
  }

  private decide(windows: readonly WindowSpec[], count: boolean): LimitDecision {
    const now = this.clock.nowMs();
    this.sweep(now);
    const looked = windows.map((spec) => {
      const start = windowStart(spec.period, now);
      const end = start + PERIOD_MS[spec.period];
      const k = key(spec.name, spec.subject, spec.period, start);
      const used = this.counts.get(k)?.count ?? 0;
      return { spec, start, end, k, used, exhausted: used >= spec.limit };
    });
    const allowed = looked.every((l) => !l.exhausted);
    if (allowed && count) {
      for (const l of looked) {
        const entry = this.counts.get(l.k) ?? { count: 0, endsAt: l.end };
        entry.count += 1;
        this.counts.set(l.k, entry);
      }
    }
    const states: WindowState[] = looked.map((l) => ({
      name: l.spec.name,
      subject: l.spec.subject,
      period: l.spec.period,
      limit: l.spec.limit,
      remaining: l.exhausted ? 0 : Math.max(0, l.spec.limit - l.used - (allowed && count ? 1 : 0)),
      windowStartMs: l.start,
      resetAt: Math.floor(l.end / 1000),
      exhausted: l.exhausted,
    }));
    const refusing = looked.filter((l) => l.exhausted);
    const retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil((Math.max(...refusing.map((l) => l.end)) - now) / 1000));
    return { allowed, windows: states, retryAfterSeconds };
  }

  /** Forget windows that have ended, at most once a second. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 1000 && now >= this.lastSweep) return;
    this.lastSweep = now;
    for (const [k, entry] of this.counts) if (entry.endsAt <= now) this.counts.delete(k);
    for (const [k, entry] of this.recalled) if (entry.endsAt <= now) this.recalled.delete(k);
  }
}

function key(name: string, subject: string, period: string, start: number): string {
  return `${name}\u0000${subject}\u0000${period}\u0000${start}`;
}
