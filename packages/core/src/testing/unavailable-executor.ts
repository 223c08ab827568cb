import type { Executor, ExecutorHealth } from '../ports/executor.js';

/** An executor with no reachable backend: run creation answers SERVICE_UNAVAILABLE. */
export class UnavailableExecutor implements Executor {
  constructor(private readonly detail = 'no backend configured') {}

  async health(): Promise<ExecutorHealth> {
    return { available: false, backends: [] };
  }

  toString(): string {
    return `UnavailableExecutor(${this.detail})`;
  }
}
