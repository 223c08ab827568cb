import { CoreError } from '../domain/errors.js';
import type { BackendPlacement, ExecutionState, Executor, ExecutorHealth, FetchedOutput, SubmitResult } from '../ports/executor.js';

/** An executor with no reachable backend: run creation answers SERVICE_UNAVAILABLE. */
export class UnavailableExecutor implements Executor {
  constructor(private readonly detail = 'no backend configured') {}

  async health(): Promise<ExecutorHealth> {
    return { available: false, backends: [] };
  }

  placement(): readonly BackendPlacement[] {
    return [];
  }

  lacks(): string | null {
    return null;
  }

  missingEverywhere(): string | null {
    return null;
  }

  async submit(): Promise<SubmitResult> {
    throw this.unreachable();
  }

  async inspect(): Promise<ExecutionState> {
    throw this.unreachable();
  }

  follow(): () => void {
    return () => undefined;
  }

  async fetchOutput(): Promise<FetchedOutput> {
    throw this.unreachable();
  }

  async cancel(): Promise<void> {
    throw this.unreachable();
  }

  async close(): Promise<void> {}

  private unreachable(): CoreError {
    return new CoreError('SERVICE_UNAVAILABLE', `The execution backend is unreachable (${this.detail})`);
  }
}
