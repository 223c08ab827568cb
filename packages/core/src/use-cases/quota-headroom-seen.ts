/**
 * Per account, when a quota read under the admission lock last found room left. A create within a
 * second of such a read skips the quota read before the run windows: that read only spares a
 * refused create its consumption of the windows, and the read under the lock still decides (a
 * create that then finds the quota spent is refused and refunded). A hint, never a decision.
 * @module
 */

/** How long a reading that found room spares the read before the windows. */
export const HEADROOM_SEEN_MS = 1000;
/** Accounts remembered at most; the oldest readings go first. */
const MAX_ACCOUNTS = 10_000;

export class QuotaHeadroomSeen {
  /** Per account, when room was last seen (ms); insertion order is age order. */
  private readonly seenAt = new Map<string, number>();

  /** Notes a read under the lock: room left, or none (then the next create reads first again). */
  note(accountId: string, roomLeft: boolean, nowMs: number): void {
    this.seenAt.delete(accountId);
    if (!roomLeft) return;
    this.seenAt.set(accountId, nowMs);
    if (this.seenAt.size > MAX_ACCOUNTS) this.seenAt.delete(this.seenAt.keys().next().value as string);
  }

  /** Whether room was seen for the account within the last second. */
  recently(accountId: string, nowMs: number): boolean {
    const at = this.seenAt.get(accountId);
    return at !== undefined && nowMs - at < HEADROOM_SEEN_MS;
  }
}
