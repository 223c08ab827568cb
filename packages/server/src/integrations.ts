/**
 * Integrations for the composition root: the storage of idempotency keys,
 * the webhook outbox and secrets, and the HTTP transport that signs and sends webhooks.
 * @module
 */
import { WebhookWorker, type IdempotencyStore, type RunloadApi, type RunloadPorts, type StreamSlots, type WebhookOutbox, type WebhookSecretRepository, type WebhookTransport } from '@runload/core';
import type { Logger } from './log.js';
import { HttpWebhookTransport } from '@runload/http-adapter';
import { KnexIdempotencyStore, KnexStreamSlots, KnexWebhookOutbox, KnexWebhookSecrets, type Database } from '@runload/storage-adapter';

export interface IntegrationPorts {
  readonly idempotency: IdempotencyStore;
  readonly webhookOutbox: WebhookOutbox;
  readonly webhookSecrets: WebhookSecretRepository;
  readonly webhookTransport: WebhookTransport;
  readonly streamSlots: StreamSlots;
}

export function integrationPorts(db: Database, options: { allowPrivate: boolean }): IntegrationPorts {
  return {
    idempotency: new KnexIdempotencyStore(db),
    webhookOutbox: new KnexWebhookOutbox(db),
    webhookSecrets: new KnexWebhookSecrets(db),
    webhookTransport: new HttpWebhookTransport({ allowPrivate: options.allowPrivate }),
    streamSlots: new KnexStreamSlots(db),
  };
}

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
