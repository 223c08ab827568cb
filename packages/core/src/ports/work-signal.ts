import type { RunChange } from '../domain/run-change.js';

/**
 * Notifications between the instances sharing the storage: work to do (a run queued, a run
 * finished, a cancel asked for), which wakes dispatchers, and each change of a run's record, which
 * the run's live event streams show as it happens.
 */
export interface WorkSignal {
  /**
   * Tells every subscriber (on every instance sharing the signal) that there may be work.
   * @param from who caused it (a dispatcher's owner, for a run it finished): heard by this
   *   instance's subscribers beside the reason, so one may skip what it already knows; other
   *   instances hear the reason alone.
   */
  notify(reason: string, from?: string): void;
  /** Calls `listener` on each notification; returns an unsubscribe function. */
  subscribe(listener: (reason: string, from?: string) => void): () => void;
  /**
   * Tells every change subscriber (on every instance sharing the signal) of a run's record as a
   * change just left it. Subscribers here hear it at once; other instances in the order this one
   * announced its changes. A change may be lost (the shared channel is down): listeners re-read
   * the runs they show now and then.
   */
  announce(change: RunChange): void;
  /** Calls `listener` on each run change announced; returns an unsubscribe function. */
  subscribeChanges(listener: (change: RunChange) => void): () => void;
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
