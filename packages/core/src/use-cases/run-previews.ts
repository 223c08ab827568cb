/**
 * The previews of a caller's run: the latest image for the preview route, and the throttle that
 * decides when a stream tells of a new one. Event streams (this API's or another's) follow
 * previews through {@link RunStreams}, whose sink receives them.
 * @module
 */
import { CoreError } from '../domain/errors.js';
import type { PreviewInfo, PreviewStore, StoredPreview } from '../ports/preview-store.js';
import type { RunRepository } from '../ports/run-repository.js';
import { requireOwnRun } from './get-run.js';
import type { Principal } from './principal.js';

/** A stream tells of a new preview at most this often. */
export const PREVIEW_EVENT_EVERY_MS = 500;

/** What a stream last told of previews. */
export interface PreviewCursor {
  readonly seq: number;
  readonly sentAtMs: number;
}

export const NO_PREVIEW_SENT: PreviewCursor = { seq: 0, sentAtMs: Number.NEGATIVE_INFINITY };

/** The cursor after telling of `info`, or null when it is not news yet (seen, or too soon after the last). */
export function nextPreview(cursor: PreviewCursor, info: PreviewInfo, nowMs: number, everyMs = PREVIEW_EVENT_EVERY_MS): PreviewCursor | null {
  if (info.seq === cursor.seq) return null;
  if (nowMs - cursor.sentAtMs < everyMs) return null;
  return { seq: info.seq, sentAtMs: nowMs };
}

export class RunPreviews {
  constructor(
    private readonly runs: RunRepository,
    private readonly store: PreviewStore,
  ) {}

  /**
   * The latest preview of one of the caller's runs.
   * @throws CoreError RUN_NOT_FOUND (not the caller's), PREVIEW_NOT_FOUND (none yet, or expired)
   */
  async latest(principal: Principal, runId: string): Promise<StoredPreview> {
    await requireOwnRun(this.runs, principal, runId);
    const preview = await this.store.latest(runId);
    if (!preview) throw new CoreError('PREVIEW_NOT_FOUND', `Run ${runId} has no preview`);
    return preview;
  }
}
