/**
 * The live event streams an account holds, counted across every instance (at most
 * 20). A slot is leased: renewed while its stream is open, freed at once when it closes, and
 * lapsing by itself when its instance dies.
 */
export interface StreamSlots {
  /** Takes one of the account's `max` slots for `holder` until `until`; false when all are held. */
  acquire(accountId: string, holder: string, max: number, now: Date, until: Date): Promise<boolean>;
  /** Extends the leases of these holders. */
  renew(holders: readonly string[], until: Date): Promise<void>;
  release(holder: string): Promise<void>;
}

export const STREAM_SLOTS = Symbol.for('runload.core.StreamSlots');
