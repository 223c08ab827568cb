/**
 * The server's background work for integrations as a module: the webhook worker and the purge of
 * expired keys, started when resolved, stopped at teardown. Every serving instance runs it
 * (events are leased, so each attempt is made once).
 * @module
 */
import { ContainerModule } from 'inversify';
import { RUNLOAD_API, stopAtTeardown, type RunloadApi, type RunloadPorts } from '@runload/core';
import { HTTP_METRICS } from '@runload/http-adapter/module';
import type { RunloadConfig } from './config.js';
import { startIntegrations, type RunningIntegrations } from './integrations.js';
import { createLogger } from './log.js';
import type { RunloadMetrics } from './metrics.js';
import { CONFIG, INSTANCE_OWNER, INTEGRATIONS, PORTS } from './tokens.js';

export function integrationsModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<RunningIntegrations>(INTEGRATIONS)
      .toResolvedValue(
        (config: RunloadConfig, ports: RunloadPorts, api: RunloadApi, metrics: RunloadMetrics, owner: string) =>
          startIntegrations(ports, api, {
            owner,
            retryDelaysMs: config.webhookRetryDelaysMs,
            log: createLogger('webhooks'),
            onAttempt: (outcome) => metrics.webhookAttempt(outcome),
          }),
        [CONFIG, PORTS, RUNLOAD_API, HTTP_METRICS, INSTANCE_OWNER],
      )
      .inSingletonScope()
      .onActivation(stopAtTeardown('webhook worker', (integrations: RunningIntegrations) => integrations.stop()));
  });
}
