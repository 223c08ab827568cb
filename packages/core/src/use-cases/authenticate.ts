/**
 * Turns a presented API key into a Principal. Every failure counts in the client address's
 * failed-authentication window, so keys cannot be guessed at speed.
 * @module
 */
import { parseApiKey, secretMatches } from '../domain/api-key.js';
import type { CoreErrorCode } from '../domain/errors.js';
import { failAuthentication } from './count-failed-authentication.js';
import type { LimitsConfig } from '../domain/limits.js';
import type { AccountRepository } from '../ports/account-repository.js';
import type { Clock } from '../ports/clock.js';
import type { ApiKeyRepository } from '../ports/api-key-repository.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { Principal } from './principal.js';
import { RecentCache } from './recent-cache.js';

/** How long a verified key is trusted without asking the database again (key and account changes apply within one second). */
export const AUTH_CACHE_MS = 500;
const AUTH_CACHE_SIZE = 10_000;

/** What a presented key names; only `ok` is kept in the cache. */
type KeyLookup = { readonly kind: 'ok'; readonly principal: Principal } | { readonly kind: 'invalid' } | { readonly kind: 'suspended' };

export class Authenticate {
  private readonly cache: RecentCache<KeyLookup>;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly accounts: AccountRepository,
    private readonly limiter: RateLimiter,
    private readonly limits: LimitsConfig,
    private readonly clock: Clock,
  ) {
    this.cache = new RecentCache(clock, AUTH_CACHE_MS, AUTH_CACHE_SIZE);
  }

  /**
   * @param presentedKey the Bearer token, or null when none was sent
   * @param clientAddress the caller's address, for the failed-authentication window
   * @throws CoreError MISSING_API_KEY, INVALID_API_KEY, ACCOUNT_SUSPENDED, or RATE_LIMITED when
   *   this address failed too often; auth errors carry the address window in `windows`.
   */
  async execute(presentedKey: string | null, clientAddress: string): Promise<Principal> {
    if (presentedKey === null || presentedKey === '') {
      return this.fail(clientAddress, 'MISSING_API_KEY', 'Missing API key');
    }
    // Every failed request counts on its own, even when requests shared one lookup.
    const found = await this.cache.get(presentedKey, () => this.lookup(presentedKey), (f) => f.kind === 'ok');
    if (found.kind === 'ok') return found.principal;
    if (found.kind === 'invalid') return this.fail(clientAddress, 'INVALID_API_KEY', 'Invalid API key');
    // A suspended account's key is refused like a bad one, so it cannot be sent at will either.
    return this.fail(clientAddress, 'ACCOUNT_SUSPENDED', 'Account suspended');
  }

  private async lookup(presentedKey: string): Promise<KeyLookup> {
    const parsed = parseApiKey(presentedKey);
    const key = parsed ? await this.keys.findByPrefix(parsed.prefix) : null;
    if (!parsed || !key || key.revokedAt !== null || !secretMatches(parsed.secret, key.secretHash)) return { kind: 'invalid' };
    const account = await this.accounts.get(key.accountId);
    if (!account) return { kind: 'invalid' };
    const now = this.clock.now();
    // Noted at most once a minute, so a busy key does not write on every request.
    if (key.lastUsedAt === null || now.getTime() - key.lastUsedAt.getTime() >= 60_000) await this.keys.touch(key.id, now);
    if (account.status === 'suspended') return { kind: 'suspended' };
    return { kind: 'ok', principal: { account, keyId: key.id } };
  }

  private fail(clientAddress: string, code: CoreErrorCode, message: string): Promise<never> {
    return failAuthentication(this.limiter, this.limits, clientAddress, code, message);
  }
}
