/**
 * Mutual exclusion by name, across every instance that shares the storage: one account's run
 * admission at a time, so concurrent creates cannot all read the same GPU quota and all pass.
 * @module
 */
export interface NamedLocks {
  /**
   * Runs `work` while holding the lock `name`: no other `withLock` of that name, on any instance,
   * runs meanwhile. The lock is released when `work` settles (its error is rethrown); one whose
   * holder died is taken over after a short time.
   * @throws CoreError STORAGE_UNAVAILABLE when the lock could not be had in time
   */
  withLock<T>(name: string, work: () => Promise<T>): Promise<T>;
}

export const NAMED_LOCKS = Symbol.for('runload.core.NamedLocks');
