/**
 * The order in which waiting runs get free slots (fair share): an account's k-th
 * waiting run (0-based, oldest first) ranks k plus the runs the account holds on backends now;
 * lower ranks start first, ties by age. This is the order repeated claims produce when each goes
 * to the account with the fewest runs on a backend, ties to the oldest run.
 * @module
 */
import type { Run } from './run.js';

export function byAge(a: Run, b: Run): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The waiting runs in the order they will start. */
export function fairShareOrder(waiting: readonly Run[], heldByAccount: ReadonlyMap<string, number>): Run[] {
  const seen = new Map<string, number>();
  const ranked = [...waiting].sort(byAge).map((run) => {
    const k = seen.get(run.accountId) ?? 0;
    seen.set(run.accountId, k + 1);
    return { run, rank: k + (heldByAccount.get(run.accountId) ?? 0) };
  });
  return ranked.sort((a, b) => a.rank - b.rank || byAge(a.run, b.run)).map((r) => r.run);
}
