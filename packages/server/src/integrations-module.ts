/**
 * The server's background work for integrations as a module: the webhook worker and the purge of
 * expired keys, started when resolved, stopped on deactivation. Every serving instance runs it
 * (events are leased, so each attempt is made once).
 * @module
 */
import { ContainerModule } from 'inversify';
import { RUNLOAD_API, type RunloadApi, type RunloadPorts } from '@runload/core';
import type { RunloadConfig } from './config.js';
import { startIntegrations, type RunningIntegrations } from './integrations.js';
import { ownerName } from './dispatcher-module.js';
import { HTTP_METRICS } from '@runload/http-adapter/module';
import { createLogger } from './log.js';
import type { RunloadMetrics } from './metrics.js';
import { CONFIG, INTEGRATIONS, PORTS } from './tokens.js';

export function integrationsModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<RunningIntegrations>(INTEGRATIONS)
      .toResolvedValue(
        (config: RunloadConfig, ports: RunloadPorts, api: RunloadApi, metrics: RunloadMetrics) =>
          startIntegrations(ports, api, {
            owner: ownerName(config),
            retryDelaysMs: config.webhookRetryDelaysMs,
            log: createLogger('webhooks'),
            onAttempt: (outcome) => metrics.webhookAttempt(outcome),
          }),
        [CONFIG, PORTS, RUNLOAD_API, HTTP_METRICS],
      )
      .inSingletonScope()
      .onDeactivation((integrations) => integrations.stop());
  });
}
