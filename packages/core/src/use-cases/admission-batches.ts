/**
 * Run admissions of one account, gathered in batches: while one batch holds the account's
 * admission lock, the creates arriving on this instance join the next batch, and the next hold
 * admits them all with one quota read. Holds of the lock, not creates, then take turns.
 * @module
 */

/**
 * The batches waiting for their hold, by account: one value, changed by {@link AdmissionBatches.join}
 * (a create arrives) and {@link AdmissionBatches.take} (a hold begins: its batch is closed).
 */
export class AdmissionBatches<M> {
  /** Per account, the members of the batch that waits for the lock (at most one per account). */
  private readonly waiting = new Map<string, M[]>();

  /**
   * Adds a create to the account's waiting batch. Returns true when it opened the batch: its
   * caller then asks for the lock on the batch's behalf (once per batch).
   */
  join(accountId: string, member: M): boolean {
    const batch = this.waiting.get(accountId);
    if (batch) {
      batch.push(member);
      return false;
    }
    this.waiting.set(accountId, [member]);
    return true;
  }

  /** Closes the account's waiting batch and returns its members in arrival order; later creates open another. */
  take(accountId: string): M[] {
    const batch = this.waiting.get(accountId) ?? [];
    this.waiting.delete(accountId);
    return batch;
  }
}

/** The quota as one hold reads it. */
export interface QuotaReading {
  readonly limit: number;
  readonly used: number;
  readonly inFlight: number;
}

/**
 * Decides a batch in arrival order, as one hold per create would: a member passes iff what is
 * used, what is in flight and the estimates of the members passed before it stay under the limit.
 * Returns, per member, the GPU-seconds in flight it is admitted against, or null when it is refused.
 */
export function admitInOrder(quota: QuotaReading, estimates: readonly number[]): (number | null)[] {
  let inFlight = quota.inFlight;
  return estimates.map((estimate) => {
    if (quota.used + inFlight >= quota.limit) return null;
    const seen = inFlight;
    inFlight += estimate;
    return seen;
  });
}
