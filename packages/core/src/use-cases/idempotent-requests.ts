/**
 * Safe retries with an `Idempotency-Key`: a key claims a unique row shared by every instance; the same
 * request again gets the stored response, a different one is refused, and one arriving while
 * the first is processed is told to come back.
 * @module
 */
import { CoreError } from '../domain/errors.js';
import type { Clock } from '../ports/clock.js';
import type { IdempotencyHold, IdempotencyStore, StoredResponse } from '../ports/idempotency-store.js';

/** How long a key is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim older than this, never completed, belonged to a server that died: it may be taken over.
 * Creating a run takes milliseconds; should one outlive this, its late write fails (the claim is
 * gone) rather than duplicate the run.
 */
export const IDEMPOTENCY_CLAIM_MS = 15_000;

/** 1–255 printable ASCII characters. */
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x20-\x7e]{1,255}$/.test(key);
}

export type IdempotencyStart = { readonly replay: StoredResponse } | { readonly hold: IdempotencyHold };

export class IdempotentRequests {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: Clock,
  ) {}

  /**
   * @throws CoreError INVALID_REQUEST (malformed key), IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE
   */
  async begin(accountId: string, key: string, fingerprint: string): Promise<IdempotencyStart> {
    if (!isValidIdempotencyKey(key)) {
      throw new CoreError('INVALID_REQUEST', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters');
    }
    const now = this.clock.now();
    const claim = await this.store.claim({
      accountId,
      key,
      fingerprint,
      now,
      claimUntil: new Date(now.getTime() + IDEMPOTENCY_CLAIM_MS),
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    });
    if (claim.outcome === 'claimed') return { hold: { accountId, key, token: claim.token } };
    if (claim.outcome === 'in-flight') {
      throw new CoreError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry shortly', {
        retryAfterSeconds: 1,
      });
    }
    if (claim.fingerprint !== fingerprint) {
      throw new CoreError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request');
    }
    return { replay: claim.response };
  }

  /** Keeps the response of a request that succeeded. */
  async complete(hold: IdempotencyHold, response: StoredResponse): Promise<void> {
    await this.store.complete(hold, response);
  }

  /** Frees the key after a request that failed: the client may retry with it. */
  async release(hold: IdempotencyHold): Promise<void> {
    await this.store.release(hold);
  }

  purgeExpired(): Promise<number> {
    return this.store.purgeExpired(this.clock.now());
  }
}
