/**
 * The dispatcher for a serving instance: made by the core's `createDispatcher` on the ports,
 * started when resolved, and stopped (claims released) at teardown.
 * @module
 */
import { ContainerModule } from 'inversify';
import { createDispatcher, stopAtTeardown, TIMERS, type Dispatcher, type RunloadPorts, type Timers } from '@runload/core';
import type { RunloadConfig } from './config.js';
import { createLogger } from './log.js';
import { CONFIG, DISPATCHER, INSTANCE_OWNER, PORTS } from './tokens.js';

export function dispatcherModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<Dispatcher>(DISPATCHER)
      .toResolvedValue(
        async (config: RunloadConfig, ports: RunloadPorts, owner: string, timers: Timers) => {
          const dispatcher = createDispatcher(ports, config.limits, {
            owner,
            leaseMs: config.leaseSeconds * 1000,
            depth: config.dispatchDepth,
            ahead: config.dispatchAhead ?? false,
            timers,
            log: createLogger('dispatcher'),
            previewLog: createLogger('previews'),
          });
          await dispatcher.start();
          return dispatcher;
        },
        [CONFIG, PORTS, INSTANCE_OWNER, TIMERS],
      )
      .inSingletonScope()
      .onActivation(stopAtTeardown('dispatcher', (dispatcher: Dispatcher) => dispatcher.stop()));
  });
}
