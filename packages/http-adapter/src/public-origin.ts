import type { H3Event } from 'h3';
import { fromTrustedProxy } from './client-address.js';

/**
 * The origin a client reached this server at: the request's own, or, behind a trusted proxy
 * (one that terminates TLS, say), the scheme and host it forwarded (`X-Forwarded-Proto`,
 * `X-Forwarded-Host`; the first entry of each, the client's side).
 */
export function publicOrigin(event: H3Event, trustedProxies: readonly string[]): string {
  const own = event.url;
  if (!fromTrustedProxy(event, trustedProxies)) return own.origin;
  const first = (name: string) => event.req.headers.get(name)?.split(',')[0]?.trim() || null;
  const proto = first('x-forwarded-proto');
  const host = first('x-forwarded-host');
  const scheme = proto === 'https' || proto === 'http' ? proto : own.protocol.slice(0, -1);
  try {
    return new URL(`${scheme}://${host ?? own.host}`).origin;
  } catch {
    return own.origin; // a forwarded host that is no host name
  }
}
