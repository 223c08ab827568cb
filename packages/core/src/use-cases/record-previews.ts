/**
 * Hands the previews of followed runs to the preview store, never touching the database. A
 * backend may send previews faster than the store takes them (hundreds a second): at most one
 * write per run is under way, and only the newest preview waits behind it, so a flood costs one
 * write at a time and two images of memory per run.
 * @module
 */
import type { Logger } from '../ports/logger.js';
import { MAX_PREVIEW_BYTES, PREVIEW_KEEP_AFTER_END_MS, type Preview, type PreviewStore } from '../ports/preview-store.js';

/** A run whose preview is being written, and what comes after the write. */
type Writing = {
  readonly kind: 'writing';
  readonly next: { readonly do: 'put'; readonly preview: Preview } | { readonly do: 'finish' } | null;
};

export interface RecordPreviewsOptions {
  /** How long a preview of a running run is kept without news (a dead instance never says the run ended). */
  readonly keepWhileRunningMs: number;
}

export class RecordPreviews {
  private readonly writing = new Map<string, Writing>();
  private readonly oversizeReported = new Set<string>();

  constructor(
    private readonly store: PreviewStore,
    private readonly log: Logger,
    private readonly options: RecordPreviewsOptions,
  ) {}

  /** A preview of a running run; one over {@link MAX_PREVIEW_BYTES} is dropped (and logged once per run). */
  offer(runId: string, preview: Preview): void {
    if (preview.bytes.length > MAX_PREVIEW_BYTES) {
      if (!this.oversizeReported.has(runId)) {
        this.oversizeReported.add(runId);
        this.log('warn', 'preview over 1 MiB dropped', { runId, bytes: preview.bytes.length });
      }
      return;
    }
    this.request(runId, { do: 'put', preview });
  }

  /** The run ended: its preview is kept ten more minutes (after a write under way). */
  finish(runId: string): void {
    this.oversizeReported.delete(runId);
    this.request(runId, { do: 'finish' });
  }

  /** Runs whose preview is being written now (tests check a flood stays bounded). */
  get pending(): number {
    return this.writing.size;
  }

  private request(runId: string, next: NonNullable<Writing['next']>): void {
    const current = this.writing.get(runId);
    if (current) {
      // A finish is never replaced by a late preview: the run has ended.
      if (current.next?.do !== 'finish') this.writing.set(runId, { kind: 'writing', next });
      return;
    }
    this.writing.set(runId, { kind: 'writing', next: null });
    void this.perform(runId, next);
  }

  private async perform(runId: string, action: NonNullable<Writing['next']>): Promise<void> {
    try {
      if (action.do === 'put') await this.store.put(runId, action.preview, this.options.keepWhileRunningMs);
      else await this.store.finish(runId, PREVIEW_KEEP_AFTER_END_MS);
    } catch (error) {
      // A preview is news, not a record: a lost one is replaced by the next.
      this.log('warn', 'could not store a preview', { runId, error: (error as Error).message });
    }
    const next = this.writing.get(runId)?.next ?? null;
    if (next === null) this.writing.delete(runId);
    else {
      this.writing.set(runId, { kind: 'writing', next: null });
      await this.perform(runId, next);
    }
  }
}
