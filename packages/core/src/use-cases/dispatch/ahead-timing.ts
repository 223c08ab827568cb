/**
 * When a full backend's next run is claimed ahead: shortly before the backend is expected to be
 * done with a run it holds, so that fair share decides that next run at most a lead's time early.
 * How long a run holds its backend is learned from the runs of the same app version that this
 * dispatcher saw end there. Pure: no I/O and no clock of its own.
 * @module
 */

/** How long before a run's expected end its backend's next run is claimed, unless told otherwise. */
export const DEFAULT_AHEAD_LEAD_MS = 50;
/** App versions whose hold is remembered at most: the least recently seen are forgotten first. */
const MAX_VERSIONS = 1000;
/** The weight of the newest run in the mean: a version whose runs change shows it within a few runs. */
const NEWEST_WEIGHT = 0.25;

/**
 * How long a run of each app version holds its backend, from claim to the backend's end: an
 * exponentially weighted mean of the runs seen end. A hint for timing a claim, never a rule that
 * decides anything alone, so it is kept in this process only (every instance learns its own).
 */
export class ExpectedHolds {
  private readonly meanMs = new Map<string, number>();

  note(appVersionId: string, heldMs: number): void {
    const before = this.meanMs.get(appVersionId);
    const mean = before === undefined ? heldMs : before + (heldMs - before) * NEWEST_WEIGHT;
    // Inserted again so the map's order is the order of last use.
    this.meanMs.delete(appVersionId);
    this.meanMs.set(appVersionId, mean);
    if (this.meanMs.size > MAX_VERSIONS) this.meanMs.delete(this.meanMs.keys().next().value as string);
  }

  /** The expected hold of a run of this version; undefined while none was seen end. */
  of(appVersionId: string): number | undefined {
    return this.meanMs.get(appVersionId);
  }
}

/** A run that holds a backend, as the timing needs it. */
export interface HeldRun {
  readonly appVersionId: string;
  /** Since when it holds the backend; null when not known (a run taken over from another instance). */
  readonly heldSinceMs: number | null;
}

export type AheadWindow =
  /** A run may be claimed ahead for this backend now. */
  | { readonly open: true }
  /** Not yet: from `opensAtMs` on (null: not for the runs it holds now). */
  | { readonly open: false; readonly opensAtMs: number | null };

/**
 * Whether a backend full of `held` is due a run claimed ahead at `nowMs`: from `leadMs` before the
 * earliest expected end of a run there until `leadMs` after it. A run that has held its backend
 * longer than that is overrunning and left out: when it ends is not known, and a run claimed for
 * it could wait long behind it. Runs expected to hold their backend less than two leads are never
 * waited for: with runs that short the server's CPU bounds the work rather than the backend's
 * gaps, and a claim ahead costs a write more than it saves. A version never seen end has no
 * expected hold, so its runs are not waited for either until one has.
 */
export function aheadWindow(held: readonly HeldRun[], expected: ExpectedHolds, nowMs: number, leadMs: number): AheadWindow {
  let earliestEndMs = Infinity;
  for (const run of held) {
    const holdMs = expected.of(run.appVersionId);
    if (run.heldSinceMs === null || holdMs === undefined || holdMs < 2 * leadMs) continue;
    const endMs = run.heldSinceMs + holdMs;
    if (nowMs <= endMs + leadMs) earliestEndMs = Math.min(earliestEndMs, endMs);
  }
  if (earliestEndMs === Infinity) return { open: false, opensAtMs: null };
  if (nowMs < earliestEndMs - leadMs) return { open: false, opensAtMs: earliestEndMs - leadMs };
  return { open: true };
}
