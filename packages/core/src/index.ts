/**
 * @runload/core: the domain of runload and its ports. No I/O, no framework.
 * In-memory adapters and contract suites are exported from `@runload/core/testing`.
 * @module
 */
export * from './domain/errors.js';
export * from './domain/tier.js';
export * from './domain/account.js';
export * from './domain/api-key.js';
export * from './domain/app-version.js';
export * from './domain/asset.js';
export * from './domain/run.js';
export * from './domain/limits.js';
export * from './domain/workflow.js';
export * from './domain/input-validation.js';

export * from './ports/clock.js';
export * from './ports/id-generator.js';
export * from './ports/account-repository.js';
export * from './ports/api-key-repository.js';
export * from './ports/app-version-repository.js';
export * from './ports/asset-repository.js';
export * from './ports/run-repository.js';
export * from './ports/blob-store.js';
export * from './ports/media-type-detector.js';
export * from './ports/rate-limiter.js';
export * from './ports/gpu-ledger.js';
export * from './ports/executor.js';
export * from './ports/node-catalog.js';
export * from './ports/work-signal.js';

export * from './system/system-clock.js';
export * from './system/random-ids.js';
