/**
 * Webhooks on runs: which events a run reports, and the shape of its subscription.
 * Whether a URL's address may be reached is the transport's concern (it resolves names).
 * @module
 */
import { CoreError } from './errors.js';
import type { RunStatus } from './run-status.js';

export const WEBHOOK_EVENT_TYPES = ['run.started', 'run.succeeded', 'run.failed', 'run.canceled', 'run.expired'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Without `webhook_events`, a run reports how it ended. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEventType[] = ['run.succeeded', 'run.failed', 'run.canceled', 'run.expired'];

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface RunWebhook {
  readonly url: string;
  readonly events: readonly WebhookEventType[];
}

/** The event a run entering `status` reports, if any (`canceling` and `queued` report none). */
export function webhookEventFor(status: RunStatus): WebhookEventType | null {
  if (status === 'running') return 'run.started';
  const type = `run.${status}`;
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type) ? (type as WebhookEventType) : null;
}

function refuse(message: string): never {
  throw new CoreError('INVALID_WEBHOOK', message);
}

/**
 * Reads `webhook` and `webhook_events` of a run body: an absolute http(s) URL without
 * credentials, and a non-empty list of known event types.
 * @throws CoreError INVALID_WEBHOOK (422 INVALID_REQUEST)
 */
export function parseRunWebhook(url: unknown, events: unknown): RunWebhook | null {
  if (url === undefined || url === null) {
    if (events !== undefined && events !== null) refuse('"webhook_events" needs a "webhook" URL');
    return null;
  }
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_WEBHOOK_URL_LENGTH) {
    refuse(`"webhook" must be an http or https URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('"webhook" is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') refuse('"webhook" must use http or https');
  if (parsed.username || parsed.password) refuse('"webhook" must not carry credentials');
  let list: readonly WebhookEventType[] = DEFAULT_WEBHOOK_EVENTS;
  if (events !== undefined && events !== null) {
    if (!Array.isArray(events) || events.length === 0) refuse(`"webhook_events" must be a non-empty list of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
    for (const e of events) {
      if (!(WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(e)) refuse(`"webhook_events": unknown event ${JSON.stringify(e)}; use ${WEBHOOK_EVENT_TYPES.join(', ')}`);
    }
    list = [...new Set(events as WebhookEventType[])];
  }
  return { url: parsed.toString(), events: list };
}
