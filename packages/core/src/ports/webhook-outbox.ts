import type { Run } from '../domain/run.js';
import type { WebhookEventType } from '../domain/webhook.js';

/** An event waiting in the outbox: written in the same transaction as the run change it reports. */
export interface WebhookEvent {
  /** Stable across attempts: the `webhook-id` header. */
  readonly id: string;
  readonly accountId: string;
  readonly runId: string;
  readonly type: WebhookEventType;
  readonly url: string;
  /** When the change happened. */
  readonly occurredAt: Date;
  /** The run as the change left it. */
  readonly run: Run;
  /** Attempts made before this one. */
  readonly attempts: number;
}

export type WebhookEventState = 'pending' | 'delivered' | 'failed';

export interface WebhookEventStatus {
  readonly state: WebhookEventState;
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly lastError: string | null;
}

export interface WebhookOutbox {
  /**
   * Leases up to `limit` pending events due at `now` whose lease is free, to `owner` until
   * `leaseUntil`, oldest first. Never gives one event to two claimers while its lease holds.
   */
  claimDue(owner: string, now: Date, leaseUntil: Date, limit: number): Promise<WebhookEvent[]>;
  /** The attempt succeeded; false when `owner` no longer held the lease. */
  markDelivered(id: string, owner: string, at: Date): Promise<boolean>;
  /** The attempt (made at `at`) failed: try again at `nextAttemptAt`, or never (null) — the event is then given up. */
  markFailed(id: string, owner: string, error: string, nextAttemptAt: Date | null, at: Date): Promise<boolean>;
  /** Frees every lease `owner` holds (a restarted instance holds no attempt in flight); returns how many. */
  releaseLeases(owner: string): Promise<number>;
  /** Deletes delivered and given-up events that ended before `before`; returns how many. */
  purgeSettled(before: Date): Promise<number>;
  /** The events of a run, for operators and tests. */
  listForRun(runId: string): Promise<(WebhookEventStatus & { id: string; type: WebhookEventType })[]>;
}

export const WEBHOOK_OUTBOX = Symbol.for('runload.core.WebhookOutbox');
