/** Wakes dispatchers when there is work (a run queued, a run finished, a cancel asked for). */
export interface WorkSignal {
  /** Tells every subscriber (on every instance sharing the signal) that there may be work. */
  notify(reason: string): void;
  /** Calls `listener` on each notification; returns an unsubscribe function. */
  subscribe(listener: (reason: string) => void): () => void;
}

/**
 * Why work may be there. Dispatchers wake on every reason; the webhook worker only on those that
 * may have written a webhook event (a change of a run that has a webhook, a cancel).
 */
export const WORK_REASONS = {
  runQueued: 'run-queued',
  runFinished: 'run-finished',
  runWithWebhookFinished: 'run-finished-webhook',
  runRequeued: 'run-requeued',
  cancelAsked: 'run-cancel',
  /** A run lost after it started waits for another backend. */
  runFailedOver: 'run-failed-over',
} as const;

export const WORK_SIGNAL = Symbol.for('runload.core.WorkSignal');
