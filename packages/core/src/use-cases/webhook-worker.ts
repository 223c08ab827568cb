/**
 * Delivers the webhook outbox. Any instance may run one: events are leased from
 * the shared outbox, so each attempt is made by exactly one instance. A run change wakes the
 * worker through the work signal; a short poll is the floor (and picks up retries when due).
 * @module
 */
import { afterAttempt, WEBHOOK_RETRY_DELAYS_MS, type DeliveryStep } from '../domain/webhook-delivery.js';
import type { Clock } from '../ports/clock.js';
import type { Timers } from '../ports/timers.js';
import { Pump } from '../system/pump.js';
import { SystemTimers } from '../system/system-timers.js';
import type { DeliveryOutcome, WebhookTransport } from '../ports/webhook-transport.js';
import type { WebhookEvent, WebhookOutbox } from '../ports/webhook-outbox.js';
import { WORK_REASONS, type WorkSignal } from '../ports/work-signal.js';
import type { ManageWebhookSecrets } from './admin/manage-webhook-secrets.js';

/** Signals after which the outbox may hold a new event (a run starting is found by the poll). */
const MAY_HAVE_WRITTEN_EVENTS = new Set<string>([WORK_REASONS.runWithWebhookFinished, WORK_REASONS.cancelAsked]);

export interface WebhookWorkerOptions {
  /** This instance's name on leases. */
  readonly owner: string;
  /** Delay before each retry; its length is the number of retries. */
  readonly retryDelaysMs?: readonly number[];
  /** How long a claim lasts: longer than one attempt's timeout. */
  readonly leaseMs?: number;
  /** The poll that finds due retries and events a lost signal did not announce. */
  readonly pollMs?: number;
  /** Events claimed (and sent in parallel) at a time. */
  readonly batch?: number;
  readonly log?: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
  /** Told each attempt's outcome (for a metric of deliveries by outcome). */
  readonly onAttempt?: (outcome: DeliveryStep['kind']) => void;
}

export interface WebhookWorkerDeps {
  readonly outbox: WebhookOutbox;
  readonly transport: WebhookTransport;
  readonly secrets: ManageWebhookSecrets;
  readonly signal: WorkSignal;
  readonly clock: Clock;
  /** Drives the poll (the event loop's timers unless given). */
  readonly timers?: Timers;
}

export class WebhookWorker {
  private readonly retryDelaysMs: readonly number[];
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly batch: number;
  private unsubscribe: (() => void) | null = null;
  private stopTimer: (() => void) | null = null;
  /** One pass at a time; a wake during a pass is seen by it (it claims again) or makes one more. */
  private readonly passes = new Pump(
    () => this.drain().catch((error: unknown) => this.log('error', 'webhook worker pass failed', { error: String(error) })),
    () => this.stopped,
  );
  /** Wakes a pass that waits for a free place or for news. */
  private nudge: (() => void) | null = null;
  private started = false;
  private stopped = false;

  constructor(
    private readonly deps: WebhookWorkerDeps,
    private readonly options: WebhookWorkerOptions,
  ) {
    this.retryDelaysMs = options.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 1_000;
    this.batch = options.batch ?? 32;
  }

  /** Starts delivering; first frees what this owner held before a restart (its attempts died with it). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.stopped = false;
    await this.deps.outbox.releaseLeases(this.options.owner).catch((error: unknown) => this.log('warn', 'could not free earlier leases', { error: String(error) }));
    // Only a change of a run with a webhook writes an event: other news is no reason to look.
    this.unsubscribe = this.deps.signal.subscribe((reason) => {
      if (MAY_HAVE_WRITTEN_EVENTS.has(reason)) void this.wake();
    });
    // Not awaited: a tick during a long pass still wakes it (a retry may have come due).
    this.stopTimer = (this.deps.timers ?? new SystemTimers()).every(this.pollMs, () => {
      void this.wake();
    });
    void this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge?.();
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.stopTimer?.();
    this.stopTimer = null;
    if (this.passes.busy()) await this.passes.request();
  }

  /** Delivers what is due now; resolves when the outbox has nothing due left. */
  wake(): Promise<void> {
    const flight = this.passes.request();
    this.nudge?.();
    return flight;
  }

  /**
   * Attempts run side by side, up to `batch` at once, and a free place is filled at once: a slow
   * receiver holds only its own run's events, never a whole batch of other accounts'. The events
   * of one run go out one after the other, in the order they happened.
   */
  private async drain(): Promise<void> {
    /** Per run, the tail of its chain of attempts in progress. */
    const chains = new Map<string, Promise<void>>();
    let attempting = 0;
    try {
      for (;;) {
        this.passes.take();
        if (this.stopped) return;
        const room = this.batch - attempting;
        const now = this.deps.clock.now();
        const events = room > 0 ? await this.deps.outbox.claimDue(this.options.owner, now, new Date(now.getTime() + this.leaseMs), room) : [];
        for (const e of [...events].sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())) {
          attempting += 1;
          const tail = (chains.get(e.runId) ?? Promise.resolve())
            .then(() => this.attempt(e))
            // Its lease runs out and the event is claimed again (the outbox keeps it).
            .catch((error: unknown) => this.log('warn', 'webhook attempt could not be recorded; it is tried again', { eventId: e.id, error: String(error) }))
            .finally(() => {
              attempting -= 1;
              if (chains.get(e.runId) === tail) chains.delete(e.runId);
              this.nudge?.();
            });
          chains.set(e.runId, tail);
        }
        if (events.length > 0) continue;
        if (attempting === 0 && !this.passes.requested()) return;
        // Wait for a place to free up, or for news of events due.
        if (!this.passes.requested()) await new Promise<void>((resolve) => (this.nudge = resolve));
        this.nudge = null;
      }
    } finally {
      await Promise.allSettled([...chains.values()]);
    }
  }

  private async attempt(event: WebhookEvent): Promise<void> {
    const attempt = event.attempts + 1;
    const started = this.deps.clock.nowMs();
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.deps.transport.deliver(event, await this.deps.secrets.secretOf(event.accountId));
    } catch (error) {
      outcome = { delivered: false, status: null, error: String(error) };
    }
    const fields = { webhookId: event.id, runId: event.runId, type: event.type, attempt, status: outcome.status, ms: this.deps.clock.nowMs() - started };
    const step = afterAttempt(attempt, outcome, this.deps.clock.nowMs(), this.retryDelaysMs);
    this.options.onAttempt?.(step.kind);
    switch (step.kind) {
      case 'delivered':
        await this.deps.outbox.markDelivered(event.id, this.options.owner, this.deps.clock.now());
        this.log('info', 'webhook delivered', fields);
        return;
      case 'retry':
        await this.deps.outbox.markFailed(event.id, this.options.owner, step.error, step.at, this.deps.clock.now());
        this.log('warn', 'webhook attempt failed; will retry', { ...fields, error: step.error, retryAt: step.at.toISOString() });
        return;
      case 'given-up':
        await this.deps.outbox.markFailed(event.id, this.options.owner, step.error, null, this.deps.clock.now());
        this.log('error', 'webhook given up after its last attempt', { ...fields, error: step.error });
        return;
    }
  }

  private log(level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>): void {
    this.options.log?.(level, message, fields);
  }
}
