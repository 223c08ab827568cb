/**
 * Redis limits with a local fallback: when Redis does not answer in time, each instance limits
 * on its own (logged, and visible in /healthz) so requests are still served; shared limits
 * resume as soon as Redis answers again (checked in the background, never on a request).
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

export class FailoverRateLimiter implements RateLimiter {
  private mode: 'redis' | 'local' = 'redis';
  private detail = 'ok';
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly shared: RateLimiter,
    private readonly local: RateLimiter,
    private readonly options: FailoverOptions,
  ) {}

  health(): { mode: 'redis' | 'local'; detail: string } {
    return { mode: this.mode, detail: this.detail };
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
    if (this.timer) clearInterval(this.timer);
  }

  private async call<T>(work: (limiter: RateLimiter) => Promise<T>): Promise<T> {
    if (this.mode === 'local') return work(this.local);
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        work(this.shared),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
        }),
      ]);
    } catch (error) {
      this.fallBack((error as Error).message);
      return work(this.local);
    } finally {
      clearTimeout(timer);
    }
  }

  private fallBack(reason: string): void {
    if (this.mode === 'local') return;
    this.mode = 'local';
    this.detail = reason;
    this.options.log('warn', 'Redis unreachable: limiting per instance until it returns', { reason });
    this.timer = setInterval(() => void this.recheck(), this.options.recheckMs);
    this.timer.unref();
  }

  private async recheck(): Promise<void> {
    try {
      await this.options.ping();
    } catch {
      return;
    }
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.mode = 'redis';
    this.detail = 'ok';
    this.options.log('info', 'Redis reachable again: shared limits resumed');
  }
}
