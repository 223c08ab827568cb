/** Wakes dispatchers when there is work (a run queued, a run finished, a cancel asked for). */
export interface WorkSignal {
  /** Tells every subscriber (on every instance sharing the signal) that there may be work. */
  notify(reason: string): void;
  /** Calls `listener` on each notification; returns an unsubscribe function. */
  subscribe(listener: (reason: string) => void): () => void;
}

export const WORK_SIGNAL = Symbol.for('runload.core.WorkSignal');
