/**
 * Which addresses a webhook may reach: none in private, loopback, link-local,
 * shared (CGNAT), multicast or reserved ranges, so a run cannot make the server call its own
 * network.
 * @module
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * True for an address a webhook must not reach: anything but public unicast, as ipaddr.js
 * classifies the IANA special-purpose registries. An IPv4-mapped IPv6 address is judged as its
 * IPv4 address. Addresses that embed an IPv4 address for a translator or tunnel (IPv4-compatible
 * `::a.b.c.d`, NAT64 `64:ff9b::`, 6to4 `2002::`, Teredo, SIIT) are refused whatever they embed:
 * on a network that routes them they reach the embedded address, loopback included.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 0) return false; // a name: judged once resolved
  let ip = ipaddr.parse(bare);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    // ::/96, the deprecated IPv4-compatible form, which ipaddr.js counts as unicast.
    else if (v6.parts.slice(0, 6).every((part) => part === 0)) return true;
  }
  return ip.range() !== 'unicast';
}

/** The hostname of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}
