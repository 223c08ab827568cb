/**
 * The dispatcher for a server: built on the container's ports, started when resolved, stopped
 * (claims released) on deactivation.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { ContainerModule } from 'inversify';
import { Dispatcher, PREVIEW_KEEP_AFTER_END_MS, RecordPreviews, RunLifecycle, SystemTimers, type RunloadPorts } from '@runload/core';
import type { RunloadConfig } from './config.js';
import { createLogger } from './log.js';
import { CONFIG, DISPATCHER, PORTS } from './tokens.js';

export function ownerName(config: RunloadConfig): string {
  if (config.instanceId) return config.instanceId;
  // One SQLite file serves one instance: a stable name lets a restarted server reclaim its runs at once.
  return config.databaseUrl ? `instance-${randomUUID()}` : `local:${config.dataDir}`;
}

export function dispatcherModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<Dispatcher>(DISPATCHER)
      .toResolvedValue(
        async (config: RunloadConfig, ports: RunloadPorts) => {
          const lifecycle = new RunLifecycle(ports.runs, ports.assets, ports.blobs, ports.gpuLedger, ports.workSignal, ports.clock, config.limits.retention);
          // A run lasts max_run_seconds at most: its preview outlives it even if no instance says it ended.
          const previews = new RecordPreviews(ports.previews, createLogger('previews'), { keepWhileRunningMs: config.limits.max_run_seconds * 1000 + PREVIEW_KEEP_AFTER_END_MS });
          const dispatcher = new Dispatcher(
            { runs: ports.runs, appVersions: ports.appVersions, assets: ports.assets, blobs: ports.blobs, executor: ports.executor, lifecycle, signal: ports.workSignal, clock: ports.clock, timers: new SystemTimers(), previews },
            {
              owner: ownerName(config),
              leaseMs: config.leaseSeconds * 1000,
              depth: config.dispatchDepth,
              maxQueueSeconds: config.limits.max_queue_seconds,
              maxRunSeconds: config.limits.max_run_seconds,
              sweepMs: Math.min(2000, (config.leaseSeconds * 1000) / 3),
              backendGraceMs: config.leaseSeconds * 1000,
              maxAttempts: config.limits.max_attempts,
              log: createLogger('dispatcher'),
            },
          );
          await dispatcher.start();
          return dispatcher;
        },
        [CONFIG, PORTS],
      )
      .inSingletonScope()
      .onDeactivation((dispatcher) => dispatcher.stop());
  });
}
