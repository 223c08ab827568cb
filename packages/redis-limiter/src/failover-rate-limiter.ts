/**
 * Redis limits with a local fallback: when Redis does not answer in time, each instance limits
 * on its own (logged, and visible in /healthz) so requests are still served; shared limits
 * resume as soon as Redis answers again (checked in the background, never on a request).
 *
 * The local limiter is made afresh at each fall-back, not at start: made then, it starts its
 * windows from what can be learned at that moment (the server's reads the run windows back from
 * the runs written so far), where one made at start would know nothing of the hours since.
 * @module
 */
import type { LimitDecision, RateLimiter, WindowSpec, Logger } from '@runload/core';

export interface FailoverOptions {
  /** How long a call may wait for Redis before the local limiter answers. */
  readonly timeoutMs: number;
  /** How often Redis is checked while the local limiter is in use. */
  readonly recheckMs: number;
  /** Resolves when Redis answers. */
  readonly ping: () => Promise<unknown>;
  readonly log: Logger;
}

/** Which limiter answers: Redis, or (since it stopped answering) one of this instance's own. */
type Mode = { readonly kind: 'redis' } | { readonly kind: 'local'; readonly reason: string; readonly limiter: RateLimiter; readonly recheck: NodeJS.Timeout };

export class FailoverRateLimiter implements RateLimiter {
  private mode: Mode = { kind: 'redis' };

  /** @param makeLocal the limiter that answers while Redis does not, made at each fall-back */
  constructor(
    private readonly shared: RateLimiter,
    private readonly makeLocal: () => RateLimiter,
    private readonly options: FailoverOptions,
  ) {}

  health(): { mode: 'redis' | 'local'; detail: string } {
    return this.mode.kind === 'redis' ? { mode: 'redis', detail: 'ok' } : { mode: 'local', detail: this.mode.reason };
  }

  consume(windows: readonly WindowSpec[]): Promise<LimitDecision> {
    return this.call((l) => l.consume(windows));
  }

  peek(windows: readonly WindowSpec[]): Promise<LimitDecision> {
    return this.call((l) => l.peek(windows));
  }

  async refund(decision: LimitDecision): Promise<void> {
    await this.call((l) => l.refund(decision));
  }

  close(): void {
    if (this.mode.kind === 'local') clearInterval(this.mode.recheck);
  }

  private async call<T>(work: (limiter: RateLimiter) => Promise<T>): Promise<T> {
    if (this.mode.kind === 'local') return work(this.mode.limiter);
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        work(this.shared),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
        }),
      ]);
    } catch (error) {
      return work(this.fallBack((error as Error).message));
    } finally {
      clearTimeout(timer);
    }
  }

  /** The local limiter, made now unless calls that failed together already made it. */
  private fallBack(reason: string): RateLimiter {
    if (this.mode.kind === 'local') return this.mode.limiter;
    const recheck = setInterval(() => void this.recheck(), this.options.recheckMs);
    recheck.unref();
    this.mode = { kind: 'local', reason, limiter: this.makeLocal(), recheck };
    this.options.log('warn', 'Redis unreachable: limiting per instance until it returns', { reason });
    return this.mode.limiter;
  }

  private async recheck(): Promise<void> {
    try {
      await this.options.ping();
    } catch {
      return;
    }
    if (this.mode.kind !== 'local') return;
    clearInterval(this.mode.recheck);
    this.mode = { kind: 'redis' };
    this.options.log('info', 'Redis reachable again: shared limits resumed');
  }
}
