/** What a ComfyUI version supports, from `system_stats.system.comfyui_version`; an unknown version is treated as older. */

type Release = readonly [number, number, number];

/** The first release known to take `POST /interrupt {prompt_id}` (recorded: v0.3.64). */
const TARGETED_INTERRUPT: Release = [0, 3, 64];
/**
 * The first release whose socket tells every output node of a prompt, cached or not (the execution
 * model of 2024), and stamps the execution's start and success with the server's time.
 */
const WHOLE_OUTCOME_ON_SOCKET: Release = [0, 3, 0];

function parse(version: string): number[] | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function atLeast(version: string | null, release: Release): boolean {
  const parts = version === null ? null : parse(version);
  if (!parts) return false;
  for (let i = 0; i < 3; i += 1) {
    const a = parts[i] as number;
    const b = release[i] as number;
    if (a !== b) return a > b;
  }
  return true;
}

/** True when `/interrupt` honours a prompt id. */
export function supportsTargetedInterrupt(version: string | null): boolean {
  return atLeast(version, TARGETED_INTERRUPT);
}

/** True when the socket tells a successful prompt's whole outcome (see `HeardExecution`). */
export function tellsOutcomeOnSocket(version: string | null): boolean {
  return atLeast(version, WHOLE_OUTCOME_ON_SOCKET);
}
