/**
 * Runs the retention sweep every few minutes on a server (the lease lets one instance at a time
 * do the work), and with it removes the staged uploads and pending asset records a killed
 * process left behind. At start it also gives the assets stored before BLAKE3 hashes were kept
 * their hash, read from their bytes.
 */
import { FillBlake3, RemoveAbandonedAssets, SweepExpiredAssets, type AssetRepository, type BlobStore, type Clock, type MaintenanceLease } from '@runload/core';
import type { Logger } from './log.js';

export interface RetentionSweep {
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

export function startRetentionSweep(
  assets: AssetRepository,
  blobs: BlobStore,
  leases: MaintenanceLease,
  clock: Clock,
  options: { owner: string; everyMs: number; log: Logger; abandonedStagingMs: number },
): RetentionSweep {
  // The lease outlives a slow sweep, and expires soon enough for another instance to take over.
  const sweep = new SweepExpiredAssets(assets, blobs, leases, clock, { owner: options.owner, leaseMs: Math.max(60_000, 3 * options.everyMs) });
  const abandoned = new RemoveAbandonedAssets(assets, blobs, clock, options.abandonedStagingMs);
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy) return; // a slow sweep is not joined by a second one of the same instance
    busy = true;
    const assetsSwept = sweep.run().then(
      (report) => {
        if (report && (report.assetsRemoved > 0 || report.blobsRemoved > 0)) options.log('info', 'retention sweep', { ...report });
      },
      (error: unknown) => options.log('warn', 'retention sweep failed; the next one retries', { error: String(error) }),
    );
    // Every instance, lease or not: staging may be its own (a local directory).
    const stagingSwept = blobs.removeAbandonedStaging(options.abandonedStagingMs).then(
      (removed) => {
        if (removed > 0) options.log('info', 'removed abandoned staged uploads', { removed });
      },
      (error: unknown) => options.log('warn', 'could not remove abandoned staged uploads; the next sweep retries', { error: String(error) }),
    );
    // Every instance too: each removal is safe to repeat, and no lease has to wait for a start.
    const pendingSwept = abandoned.run().then(
      (removed) => {
        if (removed > 0) options.log('info', 'removed asset records a killed writer left without bytes', { removed });
      },
      (error: unknown) => options.log('warn', 'could not remove abandoned asset records; the next sweep retries', { error: String(error) }),
    );
    running = Promise.all([assetsSwept, stagingSwept, pendingSwept]).then(() => undefined).finally(() => (busy = false));
  };
  const timer = setInterval(tick, options.everyMs);
  timer.unref();
  tick();
  // Nothing is left to fill once it ran: new bytes are hashed as they arrive.
  let stopping = false;
  const filled = new FillBlake3(assets, blobs).run({ stopped: () => stopping }).then(
    (count) => {
      if (count > 0) options.log('info', 'computed the BLAKE3 of assets stored before it was kept', { assets: count });
    },
    (error: unknown) => options.log('warn', 'could not compute the BLAKE3 of older assets; the next start retries', { error: String(error) }),
  );
  return {
    async stop() {
      clearInterval(timer);
      stopping = true;
      await Promise.all([running, filled]);
    },
  };
}
