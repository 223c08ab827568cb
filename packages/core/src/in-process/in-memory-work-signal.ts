import type { WorkSignal } from '../ports/work-signal.js';

/** Notifications within this process. A listener that throws does not stop the others. */
export class InMemoryWorkSignal implements WorkSignal {
  private readonly listeners = new Set<(reason: string) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => undefined) {}

  notify(reason: string): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(reason);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  subscribe(listener: (reason: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
