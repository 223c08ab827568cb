import type { RunChange } from '../domain/run-change.js';
import type { WorkSignal } from '../ports/work-signal.js';

/** Notifications within this process. A listener that throws does not stop the others. */
export class InMemoryWorkSignal implements WorkSignal {
  private readonly listeners = new Set<(reason: string, from?: string) => void>();
  private readonly changeListeners = new Set<(change: RunChange) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => undefined) {}

  notify(reason: string, from?: string): void {
    this.deliver(this.listeners, reason, from);
  }

  subscribe(listener: (reason: string, from?: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  announce(change: RunChange): void {
    this.deliver(this.changeListeners, change);
  }

  subscribeChanges(listener: (change: RunChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private deliver<A extends unknown[]>(listeners: Set<(...args: A) => void>, ...args: A): void {
    for (const listener of [...listeners]) {
      try {
        listener(...args);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
