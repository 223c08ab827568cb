/**
 * The life of one webhook event's delivery, as one transition function: each
 * attempt's outcome decides whether the event is delivered, tried again later, or given up.
 * @module
 */

/** After the first attempt: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h; then the event is given up. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];

export type AttemptResult = { readonly delivered: true } | { readonly delivered: false; readonly error: string };

export type DeliveryStep =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly at: Date; readonly error: string }
  | { readonly kind: 'given-up'; readonly error: string };

/**
 * What follows attempt number `attempt` (1 = the first) made at `nowMs`.
 * @param delaysMs the wait before each retry; its length is the number of retries
 */
export function afterAttempt(attempt: number, result: AttemptResult, nowMs: number, delaysMs: readonly number[] = WEBHOOK_RETRY_DELAYS_MS): DeliveryStep {
  if (result.delivered) return { kind: 'delivered' };
  const delay = delaysMs[attempt - 1];
  return delay === undefined ? { kind: 'given-up', error: result.error } : { kind: 'retry', at: new Date(nowMs + delay), error: result.error };
}
