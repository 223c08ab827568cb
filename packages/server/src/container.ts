/**
 * The composition root: the only place that knows every adapter. Binds each core port token to
 * the adapter the configuration selects, and the use cases on top.
 * @module
 */
import path from 'node:path';
import { Container } from 'inversify';
import type { Database as Knex } from '@runload/storage-adapter';
import {
  ACCOUNT_REPOSITORY,
  API_KEY_REPOSITORY,
  APP_VERSION_REPOSITORY,
  ASSET_REPOSITORY,
  BLOB_STORE,
  CLOCK,
  createRunloadApi,
  EXECUTOR,
  GPU_LEDGER,
  ID_GENERATOR,
  LIMITS_CONFIG,
  MEDIA_TYPE_DETECTOR,
  NODE_CATALOG,
  RandomIds,
  RATE_LIMITER,
  RUN_REPOSITORY,
  RUNLOAD_API,
  SystemClock,
  WORK_SIGNAL,
  type Clock,
  type Executor,
  type LimitsConfig,
  type NodeCatalog,
  type RateLimiter,
  type RunloadPorts,
  type WorkSignal,
} from '@runload/core';
import { InMemoryRateLimiter, InMemoryWorkSignal } from '@runload/core/in-process';
import { FileTypeMediaDetector } from '@runload/media-detector';
import {
  KnexAccountRepository,
  KnexApiKeyRepository,
  KnexAppVersionRepository,
  KnexAssetRepository,
  KnexGpuLedger,
  KnexRunRepository,
  LocalBlobStore,
} from '@runload/storage-adapter';
import type { RunloadConfig } from './config.js';
import { CONFIG, DATABASE, PORTS } from './tokens.js';

/** Adapters chosen outside the container (they need I/O to build), or replaced by tests. */
export interface ContainerParts {
  readonly db: Knex;
  readonly executor: Executor;
  readonly nodeCatalog: NodeCatalog;
  readonly limiter?: RateLimiter;
  readonly workSignal?: WorkSignal;
  readonly clock?: Clock;
}

export function buildContainer(config: RunloadConfig, parts: ContainerParts): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind<RunloadConfig>(CONFIG).toConstantValue(config);
  c.bind<LimitsConfig>(LIMITS_CONFIG).toConstantValue(config.limits);
  c.bind<Knex>(DATABASE).toConstantValue(parts.db);
  c.bind(CLOCK).toConstantValue(parts.clock ?? new SystemClock());
  c.bind(ID_GENERATOR).toConstantValue(new RandomIds());

  c.bind(ACCOUNT_REPOSITORY).toResolvedValue((db: Knex) => new KnexAccountRepository(db), [DATABASE]);
  c.bind(API_KEY_REPOSITORY).toResolvedValue((db: Knex) => new KnexApiKeyRepository(db), [DATABASE]);
  c.bind(APP_VERSION_REPOSITORY).toResolvedValue((db: Knex) => new KnexAppVersionRepository(db), [DATABASE]);
  c.bind(ASSET_REPOSITORY).toResolvedValue((db: Knex) => new KnexAssetRepository(db), [DATABASE]);
  c.bind(RUN_REPOSITORY).toResolvedValue((db: Knex) => new KnexRunRepository(db), [DATABASE]);
  c.bind(GPU_LEDGER).toResolvedValue((db: Knex) => new KnexGpuLedger(db), [DATABASE]);
  c.bind(BLOB_STORE).toConstantValue(new LocalBlobStore(path.join(config.dataDir, 'blobs')));
  c.bind(MEDIA_TYPE_DETECTOR).toConstantValue(new FileTypeMediaDetector());
  c.bind(RATE_LIMITER).toResolvedValue((clock: Clock) => parts.limiter ?? new InMemoryRateLimiter(clock), [CLOCK]);
  c.bind(WORK_SIGNAL).toConstantValue(parts.workSignal ?? new InMemoryWorkSignal());
  c.bind(EXECUTOR).toConstantValue(parts.executor);
  c.bind(NODE_CATALOG).toConstantValue(parts.nodeCatalog);

  const portTokens = [
    ACCOUNT_REPOSITORY, API_KEY_REPOSITORY, APP_VERSION_REPOSITORY, ASSET_REPOSITORY, RUN_REPOSITORY, BLOB_STORE,
    MEDIA_TYPE_DETECTOR, RATE_LIMITER, GPU_LEDGER, EXECUTOR, NODE_CATALOG, WORK_SIGNAL, CLOCK, ID_GENERATOR,
  ] as const;
  c.bind(PORTS).toResolvedValue(
    (...ports: unknown[]) => {
      const [accounts, apiKeys, appVersions, assets, runs, blobs, mediaTypes, limiter, gpuLedger, executor, nodeCatalog, workSignal, clock, ids] = ports;
      return { accounts, apiKeys, appVersions, assets, runs, blobs, mediaTypes, limiter, gpuLedger, executor, nodeCatalog, workSignal, clock, ids } as RunloadPorts;
    },
    [...portTokens],
  );
  c.bind(RUNLOAD_API).toResolvedValue((ports: RunloadPorts) => createRunloadApi(ports, config.limits), [PORTS]);
  return c;
}
