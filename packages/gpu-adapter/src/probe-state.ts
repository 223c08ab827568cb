/**
 * What runload knows of one ComfyUI server from its health probes: one value, moved only by
 * `afterProbe`. The version and the time it was last seen outlive a failed probe (an operator
 * still wants to know what was there, and interrupts pick their form by the last known version).
 */
export type ProbeState =
  | { readonly state: 'not-probed' }
  | { readonly state: 'reachable'; readonly version: string | null; readonly lastSeenAtMs: number }
  | { readonly state: 'unreachable'; readonly error: string; readonly version: string | null; readonly lastSeenAtMs: number | null };

export type ProbeOutcome =
  | { readonly answered: true; readonly version: string | null; readonly atMs: number }
  | { readonly answered: false; readonly error: string };

export interface ProbeStep {
  readonly state: ProbeState;
  /** Log a change the operator should see: the first answer after none, or the first miss. */
  readonly announce: 'reachable' | 'unreachable' | null;
}

export const NOT_PROBED: ProbeState = { state: 'not-probed' };

export function afterProbe(s: ProbeState, outcome: ProbeOutcome): ProbeStep {
  if (outcome.answered) {
    return {
      state: { state: 'reachable', version: outcome.version, lastSeenAtMs: outcome.atMs },
      announce: s.state === 'reachable' ? null : 'reachable',
    };
  }
  const known = s.state === 'not-probed' ? { version: null, lastSeenAtMs: null } : { version: s.version, lastSeenAtMs: s.lastSeenAtMs };
  return {
    state: { state: 'unreachable', error: outcome.error, ...known },
    // A start without its backend says so once; a backend that keeps failing is not logged again.
    announce: s.state === 'unreachable' ? null : 'unreachable',
  };
}

/** The health endpoint's `detail`: `ok`, the last error, or that no probe has finished yet. */
export function probeDetail(s: ProbeState): string {
  switch (s.state) {
    case 'not-probed':
      return 'not probed yet';
    case 'reachable':
      return 'ok';
    case 'unreachable':
      return s.error;
  }
}
