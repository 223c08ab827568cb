import type { NameResolver } from '../ports/name-resolver.js';

/** Names and their addresses, set by the test; `failing` makes every lookup fail. */
export class InMemoryNameResolver implements NameResolver {
  readonly names = new Map<string, string[]>();
  failing = false;

  async resolve(name: string): Promise<string[]> {
    if (this.failing) throw new Error('resolver unreachable');
    const addresses = this.names.get(name) ?? [];
    return [...new Set([...addresses.filter((a) => !a.includes(':')), ...addresses.filter((a) => a.includes(':'))])];
  }
}
