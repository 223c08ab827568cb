/**
 * Names looked up with Node's DNS resolver (A and AAAA records), on the system's name servers or
 * on the ones given (`RUNLOAD_DNS_SERVERS`: tests run one on loopback).
 * @module
 */
import { Resolver } from 'node:dns/promises';
import type { NameResolver } from '@runload/core';

/** Codes that mean "no such address", not "the resolver failed". */
const NO_ADDRESS = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

export class DnsNameResolver implements NameResolver {
  private readonly resolver: Resolver;

  /** `servers` as `ip` or `ip:port` (`[v6]:port`); none keeps the system's. */
  constructor(servers: readonly string[] = [], timeoutMs = 2000) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
    if (servers.length > 0) this.resolver.setServers([...servers]);
  }

  async resolve(name: string): Promise<string[]> {
    const [v4, v6] = await Promise.all([this.lookup(() => this.resolver.resolve4(name)), this.lookup(() => this.resolver.resolve6(name))]);
    return [...new Set([...v4, ...v6])];
  }

  private async lookup(query: () => Promise<string[]>): Promise<string[]> {
    try {
      return await query();
    } catch (error) {
      if (NO_ADDRESS.has((error as NodeJS.ErrnoException).code ?? '')) return [];
      throw error;
    }
  }
}
