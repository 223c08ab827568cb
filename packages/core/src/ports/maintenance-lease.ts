/** A named lease in shared storage, so that one instance at a time does a maintenance job (the retention sweep). */
export interface MaintenanceLease {
  /**
   * Takes or renews the lease `name` for `owner` until `until`: true when `owner` holds it now
   * (it was free, expired at `now`, or already `owner`'s), false when another owner holds it.
   */
  acquire(name: string, owner: string, until: Date, now: Date): Promise<boolean>;
}

export const MAINTENANCE_LEASE = Symbol.for('runload.core.MaintenanceLease');
