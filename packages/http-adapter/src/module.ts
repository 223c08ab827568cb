/**
 * The HTTP API as an inversify module: resolving `HTTP_SERVER` builds the app on the container's
 * `RUNLOAD_API` and starts listening, and registers with the container's `Teardown` (bound to
 * `TEARDOWN`) a close that stops accepting and lets requests in flight finish. It also binds the
 * webhook transport (HTTP out). The container must also bind `HTTP_HEALTH` (what `/healthz`
 * reports) and `LOGGER`.
 * @module
 */
import { ContainerModule } from 'inversify';
import { LOGGER, RUNLOAD_API, stopAtTeardown, WEBHOOK_TRANSPORT, type Logger, type RunloadApi } from '@runload/core';
import { createHttpApp, type HttpAppOptions } from './create-http-app.js';
import { HttpWebhookTransport } from './http-webhook-transport.js';
import { startHttpServer, type RunningHttpServer } from './start-http-server.js';

export const HTTP_HEALTH = Symbol.for('runload.http.Health');
export const HTTP_SERVER = Symbol.for('runload.http.Server');
/** Optional: how requests are counted and `/metrics` is served (see `HttpMetrics`). */
export const HTTP_METRICS = Symbol.for('runload.http.Metrics');

export interface HttpModuleOptions extends Omit<HttpAppOptions, 'health' | 'log' | 'metrics'> {
  readonly host: string;
  readonly port: number;
  /** How long requests in flight may take to finish at shutdown; default 10 s. */
  readonly graceMs?: number;
  /** Whether webhooks may target private addresses (tests on loopback); default false. */
  readonly webhookAllowPrivate?: boolean;
}

export function httpModule(options: HttpModuleOptions): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<RunningHttpServer>(HTTP_SERVER)
      .toResolvedValue(
        (api: RunloadApi, health: HttpAppOptions['health'], log: Logger, metrics?: HttpAppOptions['metrics']) => {
          const { host, port, graceMs: _grace, webhookAllowPrivate: _private, ...app } = options;
          return startHttpServer(createHttpApp(api, { ...app, health, log, ...(metrics ? { metrics } : {}) }), { host, port, log, onClosing: () => api.runStreams.closeAll() });
        },
        [RUNLOAD_API, HTTP_HEALTH, LOGGER, { optional: true, serviceIdentifier: HTTP_METRICS }],
      )
      .inSingletonScope()
      .onActivation(stopAtTeardown('http server', (server: RunningHttpServer) => server.close(options.graceMs)));
    bind(WEBHOOK_TRANSPORT).toConstantValue(new HttpWebhookTransport({ allowPrivate: options.webhookAllowPrivate ?? false }));
  });
}
