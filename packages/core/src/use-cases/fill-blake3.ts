/**
 * Assets stored before the BLAKE3 was kept get it from their bytes, a batch at a time: the server
 * runs it in the background at start, so content uploaded earlier is found by hash too.
 * @module
 */
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore } from '../ports/blob-store.js';

export class FillBlake3 {
  constructor(
    private readonly assets: AssetRepository,
    private readonly blobs: BlobStore,
  ) {}

  /**
   * Hashes the bytes of up to `batch` distinct contents without a BLAKE3, then the next batch,
   * until none is left or `stopped()` says so. One pass in SHA-256 order: content whose bytes are
   * gone is passed over, not asked for again (a database of many such assets costs one read of
   * each). Returns how many assets it filled.
   */
  async run(options: { batch?: number; stopped?: () => boolean } = {}): Promise<number> {
    const batch = options.batch ?? 100;
    let filled = 0;
    let after: string | null = null;
    for (;;) {
      const next = await this.assets.listMissingBlake3(after, batch);
      if (next.length === 0) return filled;
      for (const sha256 of next) {
        if (options.stopped?.()) return filled;
        const blake3 = await this.blobs.blake3Of(sha256);
        if (blake3 !== null) filled += await this.assets.setBlake3(sha256, blake3);
      }
      after = next.at(-1) ?? null;
    }
  }
}
