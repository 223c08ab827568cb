import type { WebhookEvent } from './webhook-outbox.js';

/** What one delivery attempt came to. */
export type DeliveryOutcome =
  | { readonly delivered: true; readonly status: number }
  | { readonly delivered: false; readonly status: number | null; readonly error: string };

/** Sends signed webhook events over the network. */
export interface WebhookTransport {
  /**
   * Why this URL may not receive webhooks (a private, loopback or link-local address, `localhost`,
   * or a name resolving to one), or null when it may.
   */
  refusal(url: string): Promise<string | null>;
  /** One attempt: the event signed with `secret`, POSTed once, redirects not followed. */
  deliver(event: WebhookEvent, secret: string): Promise<DeliveryOutcome>;
}

export const WEBHOOK_TRANSPORT = Symbol.for('runload.core.WebhookTransport');
