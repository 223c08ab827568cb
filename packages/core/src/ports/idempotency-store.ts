import type { Run } from '../domain/run.js';

/** A response kept for replay, as the adapter that produced it will send it again. */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

export interface IdempotencyClaimRequest {
  readonly accountId: string;
  readonly key: string;
  /** Hash of what makes two requests "the same" (endpoint and body). */
  readonly fingerprint: string;
  readonly now: Date;
  /** A claim not completed by then is considered abandoned (its server died) and may be taken over. */
  readonly claimUntil: Date;
  /** When the key is forgotten. */
  readonly expiresAt: Date;
}

export type IdempotencyClaim =
  /** This request holds the key: do the work, then complete or release. */
  | { readonly outcome: 'claimed'; readonly token: string }
  /** Another request with this key is being processed (on any instance). */
  | { readonly outcome: 'in-flight' }
  /** The key finished: its fingerprint and response. */
  | { readonly outcome: 'done'; readonly fingerprint: string; readonly response: StoredResponse };

export interface IdempotencyHold {
  readonly accountId: string;
  readonly key: string;
  readonly token: string;
}

/** Idempotency keys per account, shared by every instance. */
export interface IdempotencyStore {
  /** Claims the key with a unique row, or says who has it. Expired keys count as absent. */
  claim(request: IdempotencyClaimRequest): Promise<IdempotencyClaim>;
  /** Stores the response of a claimed key; false when the claim was lost. */
  complete(hold: IdempotencyHold, response: StoredResponse): Promise<boolean>;
  /**
   * Writes the run and completes the key in one transaction: either both are stored or neither.
   * @throws when the claim was lost (nothing written) or the write failed
   */
  completeWithRun(hold: IdempotencyHold, run: Run, response: StoredResponse): Promise<void>;
  /** Gives the key up after a failed request, so the client may retry with it. */
  release(hold: IdempotencyHold): Promise<void>;
  /** Deletes keys expired at `now`; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}

export const IDEMPOTENCY_STORE = Symbol.for('runload.core.IdempotencyStore');
