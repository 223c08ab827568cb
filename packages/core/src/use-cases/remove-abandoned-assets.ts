/**
 * Removes what a writer killed between an asset's record and its bytes left: a pending record
 * (hidden since it was written) and, when no other record refers to them, its bytes. Its client
 * never had an answer naming it (an upload) or its run is stored again by the dispatcher (an
 * output), so removing it is always right; only records old enough that no live writer can still
 * be committing them are touched. Every instance may run it: each step is safe to repeat.
 * @module
 */
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Clock } from '../ports/clock.js';

const BATCH = 200;

export class RemoveAbandonedAssets {
  constructor(
    private readonly assets: AssetRepository,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    /** How old a pending record must be to belong to a dead writer. */
    private readonly graceMs: number,
  ) {}

  /** Returns how many records it removed. */
  async run(): Promise<number> {
    const before = new Date(this.clock.nowMs() - this.graceMs);
    let removed = 0;
    for (;;) {
      const pending = await this.assets.listPending(before, BATCH);
      for (const asset of pending) {
        if (await this.assets.delete(asset.id)) removed += 1;
        await this.assets.deleteBlobIfUnreferenced(asset.sha256, () => this.blobs.delete(asset.sha256));
      }
      if (pending.length < BATCH) return removed;
    }
  }
}
