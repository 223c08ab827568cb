import { describeExecutorContract, IN_MEMORY_BACKEND, InMemoryExecutor } from '@runload/core/testing';

describeExecutorContract('in-memory', async () => {
  const executor = new InMemoryExecutor();
  executor.autoRun = true;
  const job = (runId: string) => ({ runId, workflow: {}, inputs: {}, media: {} });
  return {
    executor,
    backendId: IN_MEMORY_BACKEND,
    job,
    invalidJob: (runId) => {
      executor.rejectNext = { code: 'VALIDATION_ERROR', message: 'invalid', nodeId: null, nodeType: null };
      return job(runId);
    },
    hold: () => {
      executor.held = true;
    },
    release: (runId) => {
      executor.held = false;
      executor.runScripted(runId);
    },
    failNext: () => {
      executor.failNextRun = true;
    },
    forgetAll: async () => executor.forgetAll(),
    teardown: () => executor.close(),
  };
});
