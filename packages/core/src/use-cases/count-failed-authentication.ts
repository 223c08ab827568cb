import { CoreError, type CoreErrorCode } from '../domain/errors.js';
import { WINDOW, type LimitsConfig } from '../domain/limits.js';
import type { RateLimiter, WindowSpec } from '../ports/rate-limiter.js';

/**
 * Counts a failed authentication in the client address's window and throws: the failure itself
 * (with the window's state), or RATE_LIMITED once the address failed too often. API keys and
 * admin tokens share the window, so neither can be guessed at speed.
 */
export async function failAuthentication(limiter: RateLimiter, limits: LimitsConfig, clientAddress: string, code: CoreErrorCode, message: string): Promise<never> {
  const window: WindowSpec = { name: WINDOW.authFailures, subject: clientAddress, period: 'minute', limit: limits.auth_failures_per_minute };
  const decision = await limiter.consume([window]);
  if (!decision.allowed) {
    throw new CoreError('RATE_LIMITED', 'Too many failed authentication attempts from this address', {
      retryAfterSeconds: decision.retryAfterSeconds,
      windows: decision.windows,
    });
  }
  throw new CoreError(code, message, { windows: decision.windows });
}
