/**
 * Test kit and embedding kit: in-memory adapters for every port, a fake clock, sequential ids,
 * and one contract suite per port (run by the in-memory and every real adapter).
 * @module
 */
export * from './fake-clock.js';
export * from './sequential-ids.js';
