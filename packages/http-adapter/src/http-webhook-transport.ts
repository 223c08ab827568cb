/**
 * Sends webhook events: signed the Standard Webhooks way with the `standardwebhooks`
 * library, POSTed once with node's HTTP client (which follows no redirect), 10 s at most for the
 * whole attempt, answered by the status alone (the body is not read). The
 * address is checked on the connection itself (the lookup the socket uses), so a name that
 * resolves differently at delivery than at creation still cannot reach a private address.
 * @module
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { DeliveryOutcome, WebhookEvent, WebhookTransport } from '@runload/core';
import { presentRun } from './presenters.js';
import { hostOf, isLocalhostName, isPrivateAddress } from './webhook-address.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;

export interface HttpWebhookTransportOptions {
  /** Let webhooks reach private, loopback and link-local addresses (`RUNLOAD_WEBHOOK_ALLOW_PRIVATE`). */
  readonly allowPrivate: boolean;
  readonly timeoutMs?: number;
  /** Name resolution (tests map names to chosen addresses). */
  readonly lookup?: typeof dnsLookup;
}

/** The body of an event: `{ type, timestamp, data: <the run record> }`. */
export function webhookPayload(event: WebhookEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), data: presentRun(event.run, null) });
}

export class HttpWebhookTransport implements WebhookTransport {
  private readonly timeoutMs: number;
  private readonly resolve: typeof dnsLookup;

  constructor(private readonly options: HttpWebhookTransportOptions) {
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.resolve = options.lookup ?? dnsLookup;
  }

  async refusal(raw: string): Promise<string | null> {
    if (this.options.allowPrivate) return null;
    const url = new URL(raw);
    const host = hostOf(url);
    if (isLocalhostName(host)) return `${host} is a local name`;
    if (isIP(host)) return isPrivateAddress(host) ? `${host} is a private, loopback or link-local address` : null;
    const addresses = await new Promise<LookupAddress[] | null>((resolve) =>
      this.resolve(host, { all: true }, (error, found) => resolve(error ? null : (found as LookupAddress[]))),
    );
    if (!addresses || addresses.length === 0) return `${host} does not resolve`;
    const inside = addresses.find((a) => isPrivateAddress(a.address));
    return inside ? `${host} resolves to ${inside.address}, a private, loopback or link-local address` : null;
  }

  async deliver(event: WebhookEvent, secret: string): Promise<DeliveryOutcome> {
    const url = new URL(event.url);
    const host = hostOf(url);
    if (!this.options.allowPrivate && (isLocalhostName(host) || (isIP(host) && isPrivateAddress(host)))) {
      return { delivered: false, status: null, error: `refused: ${host} is a private, loopback or link-local address` };
    }
    const body = webhookPayload(event);
    const now = new Date();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'runload-webhooks',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.id, now, body),
      'content-length': String(Buffer.byteLength(body)),
    };
    return new Promise<DeliveryOutcome>((resolve) => {
      const client = url.protocol === 'https:' ? https : http;
      // The whole attempt has one deadline: a receiver that drips bytes never resets it.
      const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      const settle = (outcome: DeliveryOutcome) => {
        clearTimeout(deadline);
        resolve(outcome);
      };
      const request = client.request(url, { method: 'POST', headers, lookup: this.guardedLookup(), agent: false }, (response) => {
        // The status is the answer: the body is never waited for (a receiver may drip it forever).
        const status = response.statusCode ?? 0;
        response.destroy();
        settle(status >= 200 && status < 300 ? { delivered: true, status } : { delivered: false, status, error: status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}` });
      });
      request.once('error', (error) => settle({ delivered: false, status: null, error: error.message }));
      request.end(body);
    });
  }

  /** The socket's own lookup, refusing private addresses when they are not allowed. */
  private guardedLookup(): LookupFunction {
    const allow = this.options.allowPrivate;
    const resolve = this.resolve;
    return ((hostname: string, options: LookupOptions, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
      resolve(hostname, { ...options }, ((error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
        if (error) return callback(error, address, family);
        const list = Array.isArray(address) ? address.map((a) => a.address) : [address];
        const inside = allow ? undefined : list.find((a) => isPrivateAddress(a));
        if (inside !== undefined || isLocalhostName(hostname) && !allow) {
          return callback(new Error(`refused: ${hostname} resolves to ${inside ?? 'a local address'}, a private, loopback or link-local address`), address, family);
        }
        callback(null, address, family);
      }) as never);
    }) as LookupFunction;
  }
}
