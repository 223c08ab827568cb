/**
 * A serving instance's housekeeping of stored bytes as a module: on start, staged uploads no live
 * upload could still be writing are removed; then the retention sweep runs every few minutes (one
 * instance at a time). Deactivation stops the sweep.
 * @module
 */
import { ContainerModule } from 'inversify';
import type { RunloadPorts } from '@runload/core';
import { KnexMaintenanceLease, type Database } from '@runload/storage-adapter';
import { DATABASE } from '@runload/storage-adapter/module';
import type { RunloadConfig } from './config.js';
import { ownerName } from './dispatcher-module.js';
import { createLogger } from './log.js';
import { startRetentionSweep, type RetentionSweep } from './retention-sweep.js';
import { CONFIG, PORTS, RETENTION_SWEEP } from './tokens.js';

/** Staged bytes untouched this long belong to a dead process (a live upload writes all the time). */
export const ABANDONED_STAGING_MS = 24 * 3600 * 1000;

export function retentionModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<RetentionSweep>(RETENTION_SWEEP)
      .toResolvedValue(
        async (config: RunloadConfig, ports: RunloadPorts, db: Database) => {
          const log = createLogger('retention');
          // Only a starting server clears staging, and only what no live upload could still be writing.
          const removed = await ports.blobs.removeAbandonedStaging(ABANDONED_STAGING_MS);
          if (removed > 0) log('info', 'removed abandoned staged uploads', { removed });
          return startRetentionSweep(ports.assets, ports.blobs, new KnexMaintenanceLease(db), ports.clock, {
            owner: ownerName(config),
            everyMs: config.sweepSeconds * 1000,
            log,
          });
        },
        [CONFIG, PORTS, DATABASE],
      )
      .inSingletonScope()
      .onDeactivation((sweep) => sweep.stop());
  });
}
