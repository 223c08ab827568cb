import type { WebhookEvent } from '../ports/webhook-outbox.js';
import type { DeliveryOutcome, WebhookTransport } from '../ports/webhook-transport.js';

/** Records deliveries instead of sending them; tests script the answers. */
export class InMemoryWebhookTransport implements WebhookTransport {
  readonly sent: { event: WebhookEvent; secret: string }[] = [];
  /** Answers to give, in order; once used up, every delivery succeeds. */
  readonly script: DeliveryOutcome[] = [];

  async refusal(url: string): Promise<string | null> {
    return new URL(url).hostname === 'localhost' ? 'localhost is not reachable from the server' : null;
  }

  async deliver(event: WebhookEvent, secret: string): Promise<DeliveryOutcome> {
    this.sent.push({ event: structuredClone(event), secret });
    return this.script.shift() ?? { delivered: true, status: 200 };
  }
}
