/**
 * When a full backend's next run is claimed ahead: shortly before the backend is expected to be
 * done with a run it holds, so that fair share decides that next run at most a lead's time early
 * (plus twice how much the version's runs vary).
 * How long a run holds its backend is learned from the runs of the same app version that this
 * dispatcher saw end there. Pure: no I/O and no clock of its own.
 * @module
 */
import { RecentlyUsed } from '../recently-used.js';

/** How long before a run's expected end its backend's next run is claimed, unless told otherwise. */
export const DEFAULT_AHEAD_LEAD_MS = 50;
/** App versions whose hold is remembered at most: the least recently seen are forgotten first. */
const MAX_VERSIONS = 1000;
/** The weight of the newest run in the mean: a version whose runs change shows it within a few runs. */
const NEWEST_WEIGHT = 0.25;

/** How long runs of one app version hold their backend: a mean, and how far a run strays from it. */
export interface ExpectedHold {
  readonly meanMs: number;
  /** The mean distance of a run's hold from the mean before it (0 after one run). */
  readonly deviationMs: number;
}

/**
 * How long a run of each app version holds its backend, from claim to the backend's end:
 * exponentially weighted means of the runs seen end. A hint for timing a claim, never a rule that
 * decides anything alone, so it is kept in this process only (every instance learns its own).
 */
export class ExpectedHolds {
  private readonly holds = new RecentlyUsed<string, ExpectedHold>(MAX_VERSIONS);

  note(appVersionId: string, heldMs: number): void {
    const before = this.holds.peek(appVersionId);
    const hold: ExpectedHold = before
      ? {
          meanMs: before.meanMs + (heldMs - before.meanMs) * NEWEST_WEIGHT,
          deviationMs: before.deviationMs + (Math.abs(heldMs - before.meanMs) - before.deviationMs) * NEWEST_WEIGHT,
        }
      : { meanMs: heldMs, deviationMs: 0 };
    this.holds.set(appVersionId, hold);
  }

  /** The expected hold of a run of this version; undefined while none was seen end. */
  of(appVersionId: string): ExpectedHold | undefined {
    return this.holds.peek(appVersionId);
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
 * Whether a backend full of `held` is due a run claimed ahead at `nowMs`: around the earliest
 * expected end of a run there, from `leadMs` before it until `leadMs` after it, widened on both
 * sides by twice how far that version's runs usually stray from their mean (so a run that ends a
 * little early still finds its successor waiting). A run that has held its backend longer than
 * that is overrunning and left out: when it ends is not known, and a run claimed for it could
 * wait long behind it. Runs expected to hold their backend less than two leads are never waited
 * for: with runs that short the server's CPU bounds the work rather than the backend's gaps, and
 * a claim ahead costs a write more than it saves. A version never seen end has no expected hold,
 * so its runs are not waited for either until one has.
 */
export function aheadWindow(held: readonly HeldRun[], expected: ExpectedHolds, nowMs: number, leadMs: number): AheadWindow {
  let opensAtMs = Infinity;
  for (const run of held) {
    const hold = expected.of(run.appVersionId);
    if (run.heldSinceMs === null || hold === undefined || hold.meanMs < 2 * leadMs) continue;
    const endMs = run.heldSinceMs + hold.meanMs;
    const marginMs = leadMs + 2 * hold.deviationMs;
    if (nowMs <= endMs + marginMs) opensAtMs = Math.min(opensAtMs, endMs - marginMs);
  }
  if (opensAtMs === Infinity) return { open: false, opensAtMs: null };
  return nowMs < opensAtMs ? { open: false, opensAtMs } : { open: true };
}
