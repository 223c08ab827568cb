import { createHash } from 'node:crypto';

/**
 * A stable asset id for a run's n-th output, so that storing outputs again after a crash
 * finds the asset already written instead of duplicating it. Shaped as a UUID (v4 layout).
 */
export function outputAssetId(runId: string, index: number): string {
  const h = createHash('sha256').update(`runload-output:${runId}:${index}`).digest('hex');
  const variant = ((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
