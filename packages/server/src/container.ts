/**
 * The composition root: the only place that knows every adapter. Each adapter package brings
 * its inversify module; the configuration picks which ones load; the runtime and everything it
 * runs are resolved from the container, and shutdown deactivates them in order.
 * @module
 */
import path from 'node:path';
import { Container, ContainerModule } from 'inversify';
import {
  ACCOUNT_REPOSITORY,
  ADMIN_TOKEN_REPOSITORY,
  AUDIT_LOG,
  USAGE_REPOSITORY,
  API_KEY_REPOSITORY,
  APP_VERSION_REPOSITORY,
  ASSET_REPOSITORY,
  BLOB_STORE,
  CLOCK,
  createRunloadApi,
  EXECUTOR,
  GPU_LEDGER,
  ID_GENERATOR,
  NAMED_LOCKS,
  BACKEND_REGISTRY,
  LIMITS_CONFIG,
  LOGGER,
  MEDIA_TYPE_DETECTOR,
  NODE_CATALOG,
  PREVIEW_STORE,
  RandomIds,
  RATE_LIMITER,
  RUN_REPOSITORY,
  RUNLOAD_API,
  runWindowHistory,
  SystemClock,
  WORK_SIGNAL,
  type BackendRegistry,
  type Clock,
  type Executor,
  type RunloadApi,
  type RunloadPorts,
  type RunRepository,
} from '@runload/core';
import { InMemoryPreviewStore, InMemoryRateLimiter, InMemoryWorkSignal } from '@runload/core/in-process';
import { ComfyUiNodeCatalog } from '@runload/gpu-adapter';
import { gpuModule, poolBackends } from '@runload/gpu-adapter/module';
import { HTTP_METRICS, httpModule } from '@runload/http-adapter/module';
import { consoleRoot } from '@runload/console';
import { FileTypeMediaDetector } from '@runload/media-detector';
import { redisModule } from '@runload/redis-limiter/module';
import type { Database } from '@runload/storage-adapter';
import { DATABASE, storageModule } from '@runload/storage-adapter/module';
import { blobStoreFor } from './blob-store-choice.js';
import { integrationPorts, type IntegrationPorts } from './integrations.js';
import type { RunloadConfig } from './config.js';
import { dispatcherModule } from './dispatcher-module.js';
import { integrationsModule } from './integrations-module.js';
import { retentionModule } from './retention-module.js';
import { createLogger } from './log.js';
import { createMetrics, type RunloadMetrics } from './metrics.js';
import { runtimeModule } from './runtime-module.js';
import { poolModule } from './pool-module.js';
import { CONFIG, PORTS } from './tokens.js';

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

/** Each port by its name in `RunloadPorts`. */
const PORT_TOKENS = {
  accounts: ACCOUNT_REPOSITORY,
  apiKeys: API_KEY_REPOSITORY,
  appVersions: APP_VERSION_REPOSITORY,
  assets: ASSET_REPOSITORY,
  runs: RUN_REPOSITORY,
  blobs: BLOB_STORE,
  mediaTypes: MEDIA_TYPE_DETECTOR,
  limiter: RATE_LIMITER,
  gpuLedger: GPU_LEDGER,
  executor: EXECUTOR,
  nodeCatalog: NODE_CATALOG,
  workSignal: WORK_SIGNAL,
  clock: CLOCK,
  ids: ID_GENERATOR,
  previews: PREVIEW_STORE,
  backends: BACKEND_REGISTRY,
  adminTokens: ADMIN_TOKEN_REPOSITORY,
  auditLog: AUDIT_LOG,
  usage: USAGE_REPOSITORY,
  locks: NAMED_LOCKS,
} as const satisfies Record<Exclude<keyof RunloadPorts, keyof IntegrationPorts>, symbol>;

/** Idempotency keys, the webhook outbox and secrets, their transport and the stream slots, on the database. */
export const INTEGRATION_PORTS = Symbol.for('runload.server.IntegrationPorts');

/** What every configuration shares: configuration, clock, ids, logs, metrics, and the API on the ports. */
function coreModule(config: RunloadConfig, options: ContainerOptions, metrics: RunloadMetrics): ContainerModule {
  return new ContainerModule(({ bind, onActivation }) => {
    bind(CONFIG).toConstantValue(config);
    bind(LIMITS_CONFIG).toConstantValue(config.limits);
    bind(CLOCK).toConstantValue(options.clock ?? new SystemClock());
    bind(ID_GENERATOR).toConstantValue(new RandomIds());
    bind(LOGGER).toConstantValue(createLogger('runload'));
    bind(MEDIA_TYPE_DETECTOR).toConstantValue(new FileTypeMediaDetector());
    bind(HTTP_METRICS).toConstantValue(metrics);
    onActivation<RunRepository>(RUN_REPOSITORY, (_context, runs) => metrics.instrumentRuns(runs));
    onActivation<Database>(DATABASE, (_context, db) => metrics.instrumentDatabase(db));
    bind<IntegrationPorts>(INTEGRATION_PORTS)
      .toResolvedValue((db: Database) => integrationPorts(db, { allowPrivate: options.webhookAllowPrivate ?? config.webhookAllowPrivate }), [DATABASE])
      .inSingletonScope();
    const names = Object.keys(PORT_TOKENS) as (keyof typeof PORT_TOKENS)[];
    bind<RunloadPorts>(PORTS)
      .toResolvedValue(
        (integrations: IntegrationPorts, ...ports: unknown[]) => ({ ...Object.fromEntries(names.map((name, i) => [name, ports[i]])), ...integrations }) as unknown as RunloadPorts,
        [INTEGRATION_PORTS, ...names.map((n) => PORT_TOKENS[n])],
      )
      .inSingletonScope();
    bind(RUNLOAD_API).toResolvedValue((ports: RunloadPorts) => createRunloadApi(ports, config.limits), [PORTS]).inSingletonScope();
  });
}

/** Limits and work notifications in this process: one instance, no Redis. */
function inProcessModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    // A restarted server starts its run windows from the runs written in them.
    bind(RATE_LIMITER)
      .toResolvedValue((clock: Clock, runs: RunRepository) => new InMemoryRateLimiter(clock, runWindowHistory(runs)), [CLOCK, RUN_REPOSITORY])
      .inSingletonScope();
    bind(WORK_SIGNAL).toConstantValue(new InMemoryWorkSignal());
    bind(PREVIEW_STORE)
      .toResolvedValue((clock: Clock) => new InMemoryPreviewStore(clock), [CLOCK])
      .inSingletonScope();
  });
}

/** An executor brought by a test or an embedder; node definitions still come from the pool's backends. */
function executorModule(executor: Executor, config: RunloadConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<Executor>(EXECUTOR)
      .toConstantValue(executor)
      .onDeactivation((e) => e.close());
    bind(NODE_CATALOG)
      .toResolvedValue((registry: BackendRegistry) => new ComfyUiNodeCatalog(poolBackends(registry, config.comfyUiUrls, config.comfyUiAuth), 3000), [BACKEND_REGISTRY])
      .inSingletonScope();
  });
}

export function buildContainer(config: RunloadConfig, options: ContainerOptions): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  const metrics = createMetrics({
    db: () => container.getAsync(DATABASE),
    executor: () => container.getAsync(EXECUTOR),
    pool: async () => (await container.getAsync<RunloadApi>(RUNLOAD_API)).poolOverview,
  });
  container.load(
    coreModule(config, options, metrics),
    storageModule({ url: config.databaseUrl, dataDir: config.dataDir }),
    new ContainerModule(({ bind }) => void bind(BLOB_STORE).toConstantValue(blobStoreFor(config))),
    config.redisUrl ? redisModule(config.redisUrl) : inProcessModule(),
    options.executor ? executorModule(options.executor, config) : gpuModule({ urls: config.comfyUiUrls, auth: config.comfyUiAuth, probe: options.dispatch }),
    httpModule({
      host: config.host,
      port: config.port,
      maxUploadBytes: config.maxUploadBytes,
      uploadDir: path.join(config.dataDir, 'uploads'),
      trustedProxies: config.trustedProxies,
      corsOrigins: config.corsOrigins,
      consoleRoot: consoleRoot(),
    }),
    runtimeModule(container),
  );
  if (options.dispatch) container.load(retentionModule(), dispatcherModule(), integrationsModule());
  // The pool as data.
  if (options.dispatch) container.load(poolModule());
  return container;
}
