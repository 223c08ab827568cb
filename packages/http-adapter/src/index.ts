export { createHttpApp, type HttpAppOptions } from './create-http-app.js';
export { startHttpServer, toNodeListener, type HttpServerOptions, type RunningHttpServer } from './start-http-server.js';
export { errorResponse } from './error-response.js';
export { presentAppVersion, presentRun, presentAsset } from './presenters.js';
export { presentBackend } from './presenters.js';
export type { HttpMetrics } from './http-metrics.js';
export { HttpWebhookTransport, webhookPayload, WEBHOOK_TIMEOUT_MS, type HttpWebhookTransportOptions } from './http-webhook-transport.js';
export { isPrivateAddress } from './webhook-address.js';
