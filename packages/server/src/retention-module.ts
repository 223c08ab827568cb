/**
 * A serving instance's housekeeping of stored bytes as a module: at start and then every few
 * minutes, the retention sweep (one instance at a time) and the removal of staged uploads no live
 * upload could still be writing. The sweep stops at teardown.
 * @module
 */
import { ContainerModule } from 'inversify';
import { MAINTENANCE_LEASE, stopAtTeardown, type MaintenanceLease, type RunloadPorts } from '@runload/core';
import type { RunloadConfig } from './config.js';
import { createLogger } from './log.js';
import { startRetentionSweep, type RetentionSweep } from './retention-sweep.js';
import { CONFIG, INSTANCE_OWNER, PORTS, RETENTION_SWEEP } from './tokens.js';

/**
 * Staged bytes untouched this long belong to a dead process: a live upload writes all the time,
 * and a client that stops sending has its connection closed after two idle minutes.
 */
export const ABANDONED_STAGING_MS = 10 * 60 * 1000;

export function retentionModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<RetentionSweep>(RETENTION_SWEEP)
      .toResolvedValue(
        (config: RunloadConfig, ports: RunloadPorts, lease: MaintenanceLease, owner: string) =>
          // Servers clear staging (at start, then at each sweep), never a CLI command, and only what
          // no live upload could still be writing.
          startRetentionSweep(ports.assets, ports.blobs, lease, ports.clock, {
            owner,
            everyMs: config.sweepSeconds * 1000,
            log: createLogger('retention'),
            abandonedStagingMs: ABANDONED_STAGING_MS,
          }),
        [CONFIG, PORTS, MAINTENANCE_LEASE, INSTANCE_OWNER],
      )
      .inSingletonScope()
      .onActivation(stopAtTeardown('retention sweep', (sweep: RetentionSweep) => sweep.stop()));
  });
}
