/**
 * The composition root: the only place that knows every adapter. Each adapter brings its inversify
 * module, which binds its ports and owns its teardown: what it starts or opens is registered with
 * the container's `Teardown` when made, so shutdown stops the parts in the reverse order they were
 * started (see `shutdown.ts`). The configuration picks which modules load.
 * @module
 */
import path from 'node:path';
import { Container } from 'inversify';
import { EXECUTOR, RUNLOAD_API, Teardown, type Clock, type Executor, type RunloadApi } from '@runload/core';
import { consoleRoot } from '@runload/console';
import { gpuModule } from '@runload/gpu-adapter/module';
import { httpModule } from '@runload/http-adapter/module';
import { redisModule } from '@runload/redis-limiter/module';
import { DATABASE, storageModule } from '@runload/storage-adapter/module';
import { blobStoreModule } from './blob-store-module.js';
import type { RunloadConfig } from './config.js';
import { coreModule } from './core-module.js';
import { dispatcherModule } from './dispatcher-module.js';
import { executorModule } from './executor-module.js';
import { healthModule } from './health-module.js';
import { inProcessModule } from './in-process-module.js';
import { integrationsModule } from './integrations-module.js';
import { createMetrics } from './metrics.js';
import { poolModule } from './pool-module.js';
import { portsModule } from './ports-module.js';
import { retentionModule } from './retention-module.js';

export interface ContainerOptions {
  /** Start the dispatcher that sends runs to the backends (the server does; the CLI does not). */
  readonly dispatch: boolean;
  /** Tests replace the clock to control limit windows. */
  readonly clock?: Clock;
  /** Tests and embedders may bring their own executor instead of the ComfyUI pool. */
  readonly executor?: Executor;
  /** Integrations: whether webhooks may target private addresses (tests on loopback). */
  readonly webhookAllowPrivate?: boolean;
}

export function buildContainer(config: RunloadConfig, options: ContainerOptions): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  const metrics = createMetrics({
    db: () => container.getAsync(DATABASE),
    executor: () => container.getAsync(EXECUTOR),
    pool: async () => (await container.getAsync<RunloadApi>(RUNLOAD_API)).poolOverview,
  });
  container.load(
    coreModule({ config, teardown: new Teardown(), metrics, clock: options.clock }),
    storageModule({ url: config.databaseUrl, dataDir: config.dataDir }),
    blobStoreModule(config),
    config.redisUrl ? redisModule(config.redisUrl, { prefix: config.redisPrefix }) : inProcessModule(),
    options.executor ? executorModule(options.executor, config) : gpuModule({ urls: config.comfyUiUrls, auth: config.comfyUiAuth, probe: options.dispatch }),
    httpModule({
      host: config.host,
      port: config.port,
      maxUploadBytes: config.maxUploadBytes,
      uploadDir: path.join(config.dataDir, 'uploads'),
      trustedProxies: config.trustedProxies,
      corsOrigins: config.corsOrigins,
      consoleRoot: consoleRoot(),
      webhookAllowPrivate: options.webhookAllowPrivate ?? config.webhookAllowPrivate,
    }),
    portsModule(),
    healthModule(),
  );
  // A serving instance: the pool as data, the housekeeping of bytes, the dispatcher and the webhooks.
  if (options.dispatch) container.load(poolModule(), retentionModule(), dispatcherModule(), integrationsModule());
  return container;
}
