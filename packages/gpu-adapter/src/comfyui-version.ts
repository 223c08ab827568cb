/** What a ComfyUI version supports, from `system_stats.system.comfyui_version`. */

/** The first release known to take `POST /interrupt {prompt_id}` (recorded: v0.3.64). */
const TARGETED_INTERRUPT = [0, 3, 64] as const;

function parse(version: string): number[] | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** True when `/interrupt` honours a prompt id; an unknown version is treated as older. */
export function supportsTargetedInterrupt(version: string | null): boolean {
  const parts = version === null ? null : parse(version);
  if (!parts) return false;
  for (let i = 0; i < 3; i += 1) {
    const a = parts[i] as number;
    const b = TARGETED_INTERRUPT[i] as number;
    if (a !== b) return a > b;
  }
  return true;
}
