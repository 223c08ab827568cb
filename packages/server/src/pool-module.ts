/**
 * The pool as data for a serving instance: at start the configured servers are written to the
 * registry (as `static`, when missing), then a follower hands the registry's backends to the
 * executor every 2 s (so a change made anywhere reaches this instance's placement within 5 s)
 * and DNS names are followed. Both stop at teardown.
 * @module
 */
import { ContainerModule } from 'inversify';
import { DnsDiscovery, PoolFollower, RUNLOAD_API, stopAtTeardown, TIMERS, type RunloadApi, type RunloadPorts, type Timers } from '@runload/core';
import { DnsNameResolver } from '@runload/gpu-adapter';
import type { RunloadConfig } from './config.js';
import { createLogger } from './log.js';
import { CONFIG, PORTS, POOL_FOLLOWER } from './tokens.js';

/** How often each instance reads the pool's rows. */
export const POOL_REFRESH_MS = 2000;

export interface FollowedPool {
  readonly follower: PoolFollower;
  readonly dns: DnsDiscovery | null;
}

export function poolModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<FollowedPool>(POOL_FOLLOWER)
      .toResolvedValue(
        async (config: RunloadConfig, ports: RunloadPorts, api: RunloadApi, timers: Timers) => {
          for (const url of config.comfyUiUrls) await api.backends.ensure(url, 'static', config.comfyUiAuth);
          const log = createLogger('pool');
          const dns =
            config.comfyUiDns.length > 0
              ? new DnsDiscovery(api.backends, ports.backends, new DnsNameResolver(config.dnsServers), timers, {
                  names: config.comfyUiDns,
                  auth: config.comfyUiAuth,
                  refreshMs: config.dnsRefreshSeconds * 1000,
                  log,
                })
              : null;
          await dns?.start();
          const follower = new PoolFollower({ registry: ports.backends, runs: ports.runs, executor: ports.executor, clock: ports.clock, timers, log }, POOL_REFRESH_MS);
          await follower.start();
          return { follower, dns };
        },
        [CONFIG, PORTS, RUNLOAD_API, TIMERS],
      )
      .inSingletonScope()
      .onActivation(
        stopAtTeardown('pool follower', (pool: FollowedPool) => {
          pool.dns?.stop();
          pool.follower.stop();
        }),
      );
  });
}
