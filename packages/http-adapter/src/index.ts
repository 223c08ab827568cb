export { createHttpApp, type HttpAppOptions } from './create-http-app.js';
export { startHttpServer, toNodeListener, type RunningHttpServer } from './start-http-server.js';
export { errorResponse } from './error-response.js';
export { presentAppVersion, presentRun, presentAsset } from './presenters.js';
export type { HttpMetrics } from './http-metrics.js';
