/** The executor's test kit: the scripted in-memory backend and the contract suite every executor runs. */
export * from './in-memory-executor.js';
export { describeExecutorContract, type ExecutorDriver } from './executor.contract.js';
