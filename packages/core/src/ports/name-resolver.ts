/** Looks names up (DNS), for a pool that follows a name's addresses. */
export interface NameResolver {
  /**
   * Every IPv4 and IPv6 address of the name now, IPv4 first, each once; empty when the name
   * exists with no address or does not exist (a headless Service scaled to zero).
   * @throws Error when the resolver cannot answer (timeout, server failure): the caller keeps what it had
   */
  resolve(name: string): Promise<string[]>;
}

export const NAME_RESOLVER = Symbol.for('runload.core.NameResolver');
