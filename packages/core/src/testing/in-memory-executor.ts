import type { Executor, ExecutorHealth } from '../ports/executor.js';

/**
 * An executor that reports itself healthy and runs nothing: runs stay `queued`. For tests and
 * embedders of the public API that bring no GPU.
 */
export class InMemoryExecutor implements Executor {
  async health(): Promise<ExecutorHealth> {
    return { available: true, backends: [{ id: 'in-memory', url: 'memory:', healthy: true }] };
  }
}
