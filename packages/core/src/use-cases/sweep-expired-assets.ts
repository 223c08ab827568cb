/**
 * The retention sweep: removes expired assets (except inputs of runs still in flight), then
 * every blob no asset refers to. One instance at a time runs it (a lease in shared storage).
 *
 * Why a re-upload of the same bytes is never lost: an asset record is always written before its
 * bytes are committed, and both that write and the removal of bytes take the same per-sha256
 * lock (`AssetRepository.create` / `deleteBlobIfUnreferenced`). Bytes are removed only while the
 * lock is held and no record refers to them; an upload whose record comes after that waits for
 * the lock, and then commits its own staged copy of the bytes, which are missing by then.
 * @module
 */
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Clock } from '../ports/clock.js';
import type { MaintenanceLease } from '../ports/maintenance-lease.js';

export const SWEEP_LEASE = 'retention-sweep';
const BATCH = 200;

export interface SweepOptions {
  /** This instance's name for the lease. */
  readonly owner: string;
  /** How long the lease lasts: longer than one sweep takes. */
  readonly leaseMs: number;
}

export interface SweepReport {
  readonly assetsRemoved: number;
  readonly blobsRemoved: number;
}

export class SweepExpiredAssets {
  constructor(
    private readonly assets: AssetRepository,
    private readonly blobs: BlobStore,
    private readonly leases: MaintenanceLease,
    private readonly clock: Clock,
    private readonly options: SweepOptions,
  ) {}

  /** One sweep; null when another instance holds the lease. */
  async run(): Promise<SweepReport | null> {
    const now = this.clock.now();
    if (!(await this.leases.acquire(SWEEP_LEASE, this.options.owner, new Date(now.getTime() + this.options.leaseMs), now))) return null;
    let assetsRemoved = 0;
    const freed = new Set<string>();
    for (;;) {
      const expired = await this.assets.listExpired(now, BATCH);
      let removedHere = 0;
      for (const asset of expired) {
        if (await this.assets.usedByRunInFlight(asset)) continue;
        if (await this.assets.delete(asset.id)) {
          removedHere += 1;
          freed.add(asset.sha256);
        }
      }
      assetsRemoved += removedHere;
      if (expired.length < BATCH || removedHere === 0) break;
    }
    let blobsRemoved = 0;
    for (const sha256 of freed) if (await this.removeIfUnreferenced(sha256)) blobsRemoved += 1;
    // Then bytes nothing refers to for any other reason (a writer that died between its steps).
    for await (const sha256 of this.blobs.list()) {
      if (freed.has(sha256)) continue;
      // A plain read first: bytes some record refers to are kept without taking their lock (a
      // write), so a sweep over a large store writes only for the few candidates.
      if ((await this.assets.countBySha256(sha256)) > 0) continue;
      if (await this.removeIfUnreferenced(sha256)) blobsRemoved += 1;
    }
    return { assetsRemoved, blobsRemoved };
  }

  private removeIfUnreferenced(sha256: string): Promise<boolean> {
    return this.assets.deleteBlobIfUnreferenced(sha256, () => this.blobs.delete(sha256));
  }
}
