import type { Clock } from '../ports/clock.js';
import type { Preview, PreviewInfo, PreviewStore, StoredPreview } from '../ports/preview-store.js';

interface Entry {
  readonly preview: StoredPreview;
  expiresAtMs: number;
}

/**
 * The latest previews in this process: for a single instance (previews of runs dispatched
 * elsewhere are not seen). Holds one preview per run; expired ones are dropped as the map is used.
 */
export class InMemoryPreviewStore implements PreviewStore {
  private readonly entries = new Map<string, Entry>();
  private nextSweepMs = 0;

  constructor(private readonly clock: Clock) {}

  async put(runId: string, preview: Preview, keepMs: number): Promise<number> {
    this.sweep();
    const seq = (this.live(runId)?.preview.seq ?? 0) + 1;
    const stored: StoredPreview = { runId, seq, nodeId: preview.nodeId, contentType: preview.contentType, bytes: preview.bytes };
    this.entries.set(runId, { preview: stored, expiresAtMs: this.clock.nowMs() + keepMs });
    return seq;
  }

  async latest(runId: string): Promise<StoredPreview | null> {
    return this.live(runId)?.preview ?? null;
  }

  async info(runIds: readonly string[]): Promise<ReadonlyMap<string, PreviewInfo>> {
    const found = new Map<string, PreviewInfo>();
    for (const runId of runIds) {
      const entry = this.live(runId);
      if (entry) {
        const { bytes: _bytes, ...info } = entry.preview;
        found.set(runId, info);
      }
    }
    return found;
  }

  async finish(runId: string, keepMs: number): Promise<void> {
    const entry = this.live(runId);
    if (entry) entry.expiresAtMs = this.clock.nowMs() + keepMs;
  }

  private live(runId: string): Entry | null {
    const entry = this.entries.get(runId);
    if (!entry) return null;
    if (entry.expiresAtMs > this.clock.nowMs()) return entry;
    this.entries.delete(runId);
    return null;
  }

  /** Drops every expired preview, at most once a second (runs that are never read again). */
  private sweep(): void {
    const now = this.clock.nowMs();
    if (now < this.nextSweepMs) return;
    this.nextSweepMs = now + 1000;
    for (const [runId, entry] of this.entries) if (entry.expiresAtMs <= now) this.entries.delete(runId);
  }
}
