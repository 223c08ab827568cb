import type { H3Event } from 'h3';

/**
 * The caller's address: the socket's, or, when the socket belongs to a trusted proxy, the
 * last `X-Forwarded-For` entry that proxy added.
 */
export function clientAddress(event: H3Event, trustedProxies: readonly string[]): string {
  const socket = socketAddress(event);
  if (!fromTrustedProxy(event, trustedProxies)) return socket;
  const forwarded = event.req.headers.get('x-forwarded-for');
  const hops = (forwarded ?? '').split(',').map((s) => normalize(s.trim())).filter(Boolean);
  // Walk back from the nearest hop past every trusted proxy.
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = hops[i] as string;
    if (!trustedProxies.map(normalize).includes(hop)) return hop;
  }
  return socket;
}

/** True when the connection comes from one of the trusted proxies, whose `X-Forwarded-*` are believed. */
export function fromTrustedProxy(event: H3Event, trustedProxies: readonly string[]): boolean {
  return trustedProxies.length > 0 && trustedProxies.map(normalize).includes(socketAddress(event));
}

function socketAddress(event: H3Event): string {
  return normalize(event.runtime?.node?.req?.socket?.remoteAddress ?? (event.req as { ip?: string }).ip ?? 'unknown');
}

function normalize(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
