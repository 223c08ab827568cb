/**
 * What every configuration shares: the configuration and limits, the clock, ids and timers, logs
 * and metrics, this process's one name, and the `Teardown` every module registers its stops with.
 * @module
 */
import { ContainerModule } from 'inversify';
import {
  CLOCK,
  ID_GENERATOR,
  LIMITS_CONFIG,
  LOGGER,
  MEDIA_TYPE_DETECTOR,
  RandomIds,
  RUN_REPOSITORY,
  SystemClock,
  SystemTimers,
  TEARDOWN,
  TIMERS,
  type Clock,
  type RunRepository,
  type Teardown,
} from '@runload/core';
import { HTTP_METRICS } from '@runload/http-adapter/module';
import { FileTypeMediaDetector } from '@runload/media-detector';
import type { Database } from '@runload/storage-adapter';
import { DATABASE } from '@runload/storage-adapter/module';
import type { RunloadConfig } from './config.js';
import { instanceOwner } from './instance-owner.js';
import { createLogger } from './log.js';
import type { RunloadMetrics } from './metrics.js';
import { CONFIG, INSTANCE_OWNER } from './tokens.js';

export interface CoreModuleParts {
  readonly config: RunloadConfig;
  readonly teardown: Teardown;
  readonly metrics: RunloadMetrics;
  /** Tests replace the clock to control limit windows. */
  readonly clock?: Clock | undefined;
}

export function coreModule({ config, teardown, metrics, clock }: CoreModuleParts): ContainerModule {
  const owner = instanceOwner(config);
  return new ContainerModule(({ bind, onActivation }) => {
    bind(CONFIG).toConstantValue(config);
    bind(LIMITS_CONFIG).toConstantValue(config.limits);
    bind(TEARDOWN).toConstantValue(teardown);
    bind(INSTANCE_OWNER).toConstantValue(owner);
    bind(CLOCK).toConstantValue(clock ?? new SystemClock());
    bind(TIMERS).toConstantValue(new SystemTimers());
    bind(ID_GENERATOR).toConstantValue(new RandomIds());
    bind(LOGGER).toConstantValue(createLogger('runload'));
    bind(MEDIA_TYPE_DETECTOR).toConstantValue(new FileTypeMediaDetector());
    bind(HTTP_METRICS).toConstantValue(metrics);
    onActivation<RunRepository>(RUN_REPOSITORY, (_context, runs) => metrics.instrumentRuns(runs));
    onActivation<Database>(DATABASE, (_context, db) => metrics.instrumentDatabase(db));
  });
}
