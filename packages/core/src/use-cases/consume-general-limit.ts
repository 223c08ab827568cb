import { CoreError } from '../domain/errors.js';
import { WINDOW, type LimitsConfig } from '../domain/limits.js';
import type { WindowState } from '../domain/limit-window.js';
import type { RateLimiter, WindowSpec } from '../ports/rate-limiter.js';
import type { Principal } from './principal.js';

/**
 * The general window (120 requests a minute per account): every authenticated request counts, except one this window refuses.
 */
export class ConsumeGeneralLimit {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: LimitsConfig,
  ) {}

  /** Counts the request; returns the window state. @throws CoreError RATE_LIMITED */
  async execute(principal: Principal): Promise<WindowState> {
    const decision = await this.limiter.consume([this.window(principal)]);
    if (!decision.allowed) {
      throw new CoreError('RATE_LIMITED', `Rate limit exceeded: ${this.limits.general_per_minute} requests per minute`, {
        retryAfterSeconds: decision.retryAfterSeconds,
        windows: decision.windows,
      });
    }
    return decision.windows[0] as WindowState;
  }

  /** The window's state without counting. */
  async peek(principal: Principal): Promise<WindowState> {
    const decision = await this.limiter.peek([this.window(principal)]);
    return decision.windows[0] as WindowState;
  }

  private window(principal: Principal): WindowSpec {
    return { name: WINDOW.general, subject: principal.account.id, period: 'minute', limit: this.limits.general_per_minute };
  }
}
