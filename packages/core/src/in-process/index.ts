/**
 * Production adapters that need no I/O, for a single process: the fixed-window rate limiter and
 * the work signal. The standalone server uses them when no Redis is configured; embedders may too.
 * Like `@runload/core/testing`, this entry loads no test library (only `@runload/core/contract-tests` does).
 * @module
 */
export * from './in-memory-rate-limiter.js';
export * from './in-memory-work-signal.js';
export * from './in-memory-preview-store.js';
export * from './in-process-named-locks.js';
