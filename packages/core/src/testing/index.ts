/**
 * Test kit: fakes for every port, a fake clock, sequential ids, and one contract suite per port
 * (run by the in-memory and every real adapter). Loads mocha and chai: never import it from
 * production code; production in-process adapters live in `@runload/core/in-process`.
 * @module
 */
export * from './fake-clock.js';
export * from './wait-for.js';
export * from './manual-timers.js';
export * from './timers.contract.js';
export * from './sequential-ids.js';
export * from './storage-testing.js';
// Re-exported so a test needs one import for a whole in-memory world.
export * from '../in-process/index.js';
export * from './in-memory-executor.js';
export * from './unavailable-executor.js';
export * from './magic-bytes-detector.js';
export * from './static-node-catalog.js';
export * from './in-memory-ports.js';
export * from './rate-limiter-contract.js';
export * from './executor.contract.js';
export * from './work-signal-contract.js';
export * from './in-memory-webhook-transport.js';
export * from './preview-store.contract.js';
