/**
 * The latest preview image of each running run (what ComfyUI sends while a sampler works),
 * shared by every instance. Only the newest is kept; it carries a sequence number that grows
 * with each preview of the run, so a reader tells a new one from one it has seen.
 * @module
 */

export type PreviewContentType = 'image/jpeg' | 'image/png';

/** A preview as the backend sent it. */
export interface Preview {
  /** The node that made it, when the backend says so. */
  readonly nodeId: string | null;
  readonly contentType: PreviewContentType;
  readonly bytes: Uint8Array;
}

/** What is known of a stored preview without its bytes. */
export interface PreviewInfo {
  readonly runId: string;
  /** Grows by at least one with each preview of the run. */
  readonly seq: number;
  readonly nodeId: string | null;
  readonly contentType: PreviewContentType;
}

export interface StoredPreview extends PreviewInfo {
  readonly bytes: Uint8Array;
}

/** A preview larger than this is dropped, never stored. */
export const MAX_PREVIEW_BYTES = 1024 * 1024;

/** How long the last preview of a run stays readable after the run ends. */
export const PREVIEW_KEEP_AFTER_END_MS = 10 * 60_000;

export interface PreviewStore {
  /**
   * Replaces the run's preview with this one and returns its sequence number (greater than that
   * of every earlier preview of the run still stored). The run's preview vanishes `keepMs` from
   * now unless another put or `finish` sets a new deadline.
   */
  put(runId: string, preview: Preview, keepMs: number): Promise<number>;
  /** The run's preview with its bytes, or null when it has none (never had one, or expired). */
  latest(runId: string): Promise<StoredPreview | null>;
  /** The current preview of each of these runs that has one, without bytes (one read for them all). */
  info(runIds: readonly string[]): Promise<ReadonlyMap<string, PreviewInfo>>;
  /** The run ended: its preview vanishes `keepMs` from now. A run without a preview is left alone. */
  finish(runId: string, keepMs: number): Promise<void>;
}

export const PREVIEW_STORE = Symbol.for('runload.core.PreviewStore');
