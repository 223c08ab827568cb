/**
 * Test kit: an in-memory fake for every port, a fake clock, sequential ids and small waiting
 * helpers. It loads no test runner and no assertion library, so a project's unit tests (whatever
 * runs them) and an embedding can use it; the contract suites, which need mocha and chai, are in
 * `@runload/core/contract-tests`. Production in-process adapters live in `@runload/core/in-process`.
 * @module
 */
export * from './fake-clock.js';
export * from './wait-for.js';
export * from './manual-timers.js';
export * from './sequential-ids.js';
export * from './storage-testing.js';
// Re-exported so a test needs one import for a whole in-memory world.
export * from '../in-process/index.js';
export * from './in-memory-executor.js';
export * from './unavailable-executor.js';
export * from './magic-bytes-detector.js';
export * from './static-node-catalog.js';
export * from './in-memory-ports.js';
export * from './in-memory-webhook-transport.js';
