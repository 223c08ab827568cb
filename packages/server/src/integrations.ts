/**
 * The server's background work for integrations: the webhook worker and the purge of expired
 * idempotency keys and old webhook events. Their stores are ports (the storage adapter's module
 * binds them; the HTTP adapter's binds the transport).
 * @module
 */
import { WebhookWorker, type RunloadApi, type RunloadPorts } from '@runload/core';
import type { Logger } from './log.js';

/** How often expired idempotency keys and old settled webhook events are deleted. */
const PURGE_EVERY_MS = 10 * 60_000;
/** How long a delivered or given-up webhook event is kept (for operators looking into a delivery). */
const SETTLED_EVENTS_KEPT_MS = 7 * 24 * 3600_000;

export interface RunningIntegrations {
  readonly webhooks: WebhookWorker;
  stop(): Promise<void>;
}

/** The server's background work for integrations: the webhook worker and the purge of expired keys. */
export async function startIntegrations(
  ports: RunloadPorts,
  api: RunloadApi,
  options: { owner: string; retryDelaysMs: readonly number[] | null; log: Logger; onAttempt?: (outcome: string) => void },
): Promise<RunningIntegrations> {
  const webhooks = new WebhookWorker(
    { outbox: ports.webhookOutbox, transport: ports.webhookTransport, secrets: api.webhookSecrets, signal: ports.workSignal, clock: ports.clock },
    { owner: options.owner, ...(options.retryDelaysMs ? { retryDelaysMs: options.retryDelaysMs } : {}), log: options.log, ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}) },
  );
  await webhooks.start();
  const purge = () => {
    const failed = (what: string) => (error: unknown) => options.log('warn', `${what} purge failed`, { error: String(error) });
    void api.idempotency.purgeExpired().catch(failed('idempotency key'));
    void ports.webhookOutbox.purgeSettled(new Date(ports.clock.nowMs() - SETTLED_EVENTS_KEPT_MS)).catch(failed('webhook event'));
  };
  const timer = setInterval(purge, PURGE_EVERY_MS);
  timer.unref();
  purge();
  return {
    webhooks,
    async stop() {
      clearInterval(timer);
      await webhooks.stop();
    },
  };
}
