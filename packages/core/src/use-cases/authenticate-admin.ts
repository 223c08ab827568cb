/**
 * The admin API's door: a presented admin token becomes an AdminPrincipal, the token's own
 * general window is counted, and the route's scope is checked. Failures count in the client
 * address's failed-authentication window, as they do for API keys.
 * @module
 */
import { parseAdminToken, scopeAllows, type AdminScope, type AdminToken } from '../domain/admin-token.js';
import { secretMatches } from '../domain/api-key.js';
import { CoreError, type CoreErrorCode } from '../domain/errors.js';
import { failAuthentication } from './count-failed-authentication.js';
import { WINDOW, type LimitsConfig } from '../domain/limits.js';
import type { AdminTokenRepository } from '../ports/admin-token-repository.js';
import type { Clock } from '../ports/clock.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import type { WindowState } from '../domain/limit-window.js';
import type { RateLimiter, WindowSpec } from '../ports/rate-limiter.js';
import { AUTH_CACHE_MS } from './authenticate.js';
import { RecentCache } from './recent-cache.js';

/** Requests one admin token may make in a minute, on every route of the admin API together. */
export const ADMIN_GENERAL_PER_MINUTE = 600;
/** `lastUsedAt` is written at most this often per token: a busy token does not write on every request. */
const TOUCH_EVERY_MS = 60_000;

export interface AdminPrincipal {
  readonly token: AdminToken;
}

export class AuthenticateAdmin {
  private readonly cache: RecentCache<AdminToken | null>;

  constructor(
    private readonly tokens: AdminTokenRepository,
    private readonly limiter: RateLimiter,
    private readonly limits: LimitsConfig,
    private readonly clock: Clock,
    private readonly log: Logger = silentLogger,
  ) {
    this.cache = new RecentCache(clock, AUTH_CACHE_MS);
  }

  /**
   * @param presented the Bearer token, or null when none was sent
   * @throws CoreError MISSING_ADMIN_TOKEN, INVALID_ADMIN_TOKEN (with the address window in
   *   `windows`), or RATE_LIMITED when this address failed too often
   */
  async execute(presented: string | null, clientAddress: string): Promise<AdminPrincipal> {
    if (presented === null || presented === '') return this.fail(clientAddress, 'MISSING_ADMIN_TOKEN', 'Missing admin token');
    const token = await this.cache.get(presented, () => this.lookup(presented), (t) => t !== null);
    if (!token) return this.fail(clientAddress, 'INVALID_ADMIN_TOKEN', 'Invalid admin token');
    return { token };
  }

  /** Counts the request in the token's general window. @throws CoreError RATE_LIMITED */
  async consume(principal: AdminPrincipal): Promise<WindowState> {
    const decision = await this.limiter.consume([this.window(principal)]);
    if (!decision.allowed) {
      throw new CoreError('RATE_LIMITED', `Rate limit exceeded: ${ADMIN_GENERAL_PER_MINUTE} requests per minute for this admin token`, {
        retryAfterSeconds: decision.retryAfterSeconds,
        windows: decision.windows,
      });
    }
    return decision.windows[0] as WindowState;
  }

  /** @throws CoreError FORBIDDEN naming the scope the route needs */
  requireScope(principal: AdminPrincipal, scope: AdminScope, isRead: boolean): void {
    if (!scopeAllows(principal.token.scopes, scope, isRead)) {
      throw new CoreError('FORBIDDEN', `This admin token lacks the scope "${scope}"${isRead ? ' (or "read")' : ''}`);
    }
  }

  private window(principal: AdminPrincipal): WindowSpec {
    return { name: WINDOW.adminGeneral, subject: principal.token.id, period: 'minute', limit: ADMIN_GENERAL_PER_MINUTE };
  }

  private async lookup(presented: string): Promise<AdminToken | null> {
    const parsed = parseAdminToken(presented);
    const token = parsed ? await this.tokens.findByPrefix(parsed.prefix) : null;
    if (!parsed || !token || token.revokedAt !== null || !secretMatches(parsed.secret, token.secretHash)) return null;
    const now = this.clock.now();
    if (token.lastUsedAt === null || now.getTime() - token.lastUsedAt.getTime() >= TOUCH_EVERY_MS) {
      // The request goes on even when the note of its use could not be written.
      await this.tokens.touch(token.id, now).catch((error: unknown) => this.log('warn', 'could not record an admin token\'s use', { error: String(error) }));
    }
    return token;
  }

  private fail(clientAddress: string, code: CoreErrorCode, message: string): Promise<never> {
    return failAuthentication(this.limiter, this.limits, clientAddress, code, message);
  }
}
