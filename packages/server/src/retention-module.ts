/**
 * A serving instance's housekeeping of stored bytes as a module: at start and then every few
 * minutes, the retention sweep (one instance at a time) and the removal of staged uploads no live
 * upload could still be writing. Deactivation stops the sweep.
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

/**
 * Staged bytes untouched this long belong to a dead process: a live upload writes all the time,
 * and a client that stops sending has its connection closed after two idle minutes.
 */
export const ABANDONED_STAGING_MS = 10 * 60 * 1000;

export function retentionModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<RetentionSweep>(RETENTION_SWEEP)
      .toResolvedValue(
        (config: RunloadConfig, ports: RunloadPorts, db: Database) =>
          // Servers clear staging (at start, then at each sweep), never a CLI command, and only what
          // no live upload could still be writing.
          startRetentionSweep(ports.assets, ports.blobs, new KnexMaintenanceLease(db), ports.clock, {
            owner: ownerName(config),
            everyMs: config.sweepSeconds * 1000,
            log: createLogger('retention'),
            abandonedStagingMs: ABANDONED_STAGING_MS,
          }),
        [CONFIG, PORTS, DATABASE],
      )
      .inSingletonScope()
      .onDeactivation((sweep) => sweep.stop());
  });
}
