/**
 * Follows DNS names (a Kubernetes headless Service, Consul): every address of each name is a
 * backend `http://ADDR:PORT` (source `dns`), looked up again on a timer; an address that
 * disappears is drained, then removed once it holds nothing; one that comes back is active again.
 * A lookup that fails changes nothing (a flaky resolver must not empty the pool).
 * @module
 */
import type { BackendCredentials } from '../../domain/backend.js';
import type { BackendRegistry } from '../../ports/backend-registry.js';
import type { Logger } from '../../ports/logger.js';
import type { NameResolver } from '../../ports/name-resolver.js';
import type { Timers } from '../../ports/timers.js';
import type { ManageBackends } from './manage-backends.js';

export interface DnsDiscoveryOptions {
  readonly names: readonly { readonly name: string; readonly port: number }[];
  readonly auth: BackendCredentials | null;
  readonly refreshMs: number;
  readonly log: Logger;
}

export class DnsDiscovery {
  private cancel: (() => void) | null = null;

  constructor(
    private readonly backends: ManageBackends,
    private readonly registry: BackendRegistry,
    private readonly resolver: NameResolver,
    private readonly timers: Timers,
    private readonly options: DnsDiscoveryOptions,
  ) {}

  async start(): Promise<void> {
    await this.refresh();
    this.cancel = this.timers.every(this.options.refreshMs, () => this.refresh());
  }

  stop(): void {
    this.cancel?.();
  }

  async refresh(): Promise<void> {
    const wanted = new Set<string>();
    for (const { name, port } of this.options.names) {
      let addresses: string[];
      try {
        addresses = await this.resolver.resolve(name);
      } catch (error) {
        this.options.log('warn', 'DNS lookup failed; the pool keeps its addresses until it answers', { name, error: (error as Error).message });
        return;
      }
      for (const address of addresses) wanted.add(`http://${address.includes(':') ? `[${address}]` : address}:${port}`);
    }
    try {
      for (const url of wanted) {
        const backend = await this.backends.ensure(url, 'dns', this.options.auth);
        // An address that came back after it vanished.
        if (backend.source === 'dns' && backend.retiring) await this.registry.update(backend.id, { state: 'active', retiring: false });
      }
      for (const backend of await this.registry.list()) {
        if (backend.source !== 'dns' || backend.retiring || wanted.has(backend.url)) continue;
        await this.registry.update(backend.id, { state: backend.state === 'active' ? 'draining' : backend.state, retiring: true });
        this.options.log('info', 'address gone from DNS; draining its backend', { backend: backend.url });
      }
    } catch (error) {
      this.options.log('warn', 'could not follow DNS; the next period tries again', { error: (error as Error).message });
    }
  }
}
