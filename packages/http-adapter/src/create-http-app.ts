/**
 * The HTTP API on h3: routes of CONTRACT 3 under `/api/v1`, `/healthz` and `/metrics` at the root, and a
 * fallback that answers unknown routes (404) and wrong methods (405) in our error form.
 * @module
 */
import { deleteAssetRoute, listAssetsRoute } from './asset-list-routes.js';
import { randomUUID } from 'node:crypto';
import { H3, type H3Event } from 'h3';
import type { RunloadApi } from '@runload/core';
import { requestIdOf, requestLog } from './request-log.js';
import { apiRoute, jsonResponse, type PipelineDeps, type RouteContext, type RouteKind, type RouteResult } from './api-route.js';
import { corsMiddleware } from './cors.js';
import { registerDocumentationRoutes } from './documentation-routes.js';
import { registerConsoleRoutes } from './console-routes.js';
import { errorResponse, HttpError } from './error-response.js';
import { requestTimer, type HttpMetrics } from './http-metrics.js';
import { withoutBody } from './head-response.js';
import { API_PREFIX } from './presenters.js';
import { MAX_JSON_BYTES } from './read-json-body.js';
import {
  accountRoute,
  assetContentRoute,
  cancelRunRoute,
  createRunRoute,
  describeAppRoute,
  getAssetRoute,
  getRunRoute,
  listAppsRoute,
  listRunsRoute,
} from './routes.js';
import { uploadAssetRoute } from './upload-asset-route.js';
import { idempotentUpload } from './idempotency.js';
import { runEventsRoute } from './run-events-route.js';
import { runPreviewRoute } from './run-preview-route.js';
import { MULTIPART_SLACK_BYTES } from './upload-options.js';
import { ADMIN_PREFIX, adminPipeline, type AdminRoute } from './admin-route.js';
import { adminRouteTable } from './admin-routes.js';
import { routePattern } from './route-pattern.js';
import { registerComfyV2Routes } from './comfy-v2/register-comfy-v2.js';

export interface HttpAppOptions {
  /** The upload size cap in bytes (CONTRACT 1: `RUNLOAD_MAX_UPLOAD_BYTES`). */
  readonly maxUploadBytes: number;
  /** The largest JSON body accepted (default 1 MiB, CONTRACT 5). */
  readonly maxJsonBytes?: number;
  /** Formidable's scratch directory; keep it inside the data directory. */
  readonly uploadDir: string;
  readonly trustedProxies?: readonly string[];
  /**
   * The state of the database, limiter and backends for `/healthz`: `ok` false answers 503; a
   * `backends` entry with `available: false` answers 200 with `status: "degraded"`.
   */
  readonly health: () => Promise<{ ok: boolean } & Record<string, unknown>>;
  readonly log?: PipelineDeps['log'];
  readonly requestId?: () => string;
  /** Browser origins allowed to call the API (`RUNLOAD_CORS_ORIGINS`); none by default. */
  readonly corsOrigins?: readonly string[];
  /** Counts requests and serves `GET /metrics`; without it there is no `/metrics` route. */
  readonly metrics?: HttpMetrics;
  /** The directory of the built web console (its `index.html`); without it `/console` answers 404. */
  readonly consoleRoot?: string | undefined;
  /** Admin routes served beside the built-in ones (an embedder's own operator routes). */
  readonly adminRoutes?: readonly AdminRoute[];
}

interface RouteDef {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly kind: RouteKind;
  readonly handler: (ctx: RouteContext) => Promise<RouteResult>;
}

/** An error h3 raised itself: its status in our form, without its message. */
function frameworkError(status: number): HttpError | null {
  if (status === 404) return new HttpError(404, 'NOT_FOUND', 'No such route');
  if (status >= 400 && status < 500) return new HttpError(400, 'INVALID_REQUEST', 'The request could not be read');
  return null;
}

/** The root paths of the API description (`/openapi.json`, `/docs`, its assets) and of the console. */
const DOCUMENTATION_PATH = /^\/(openapi\.json|docs|docs\/assets\/[^/]+|console\/?|console\/assets\/[^/]+)$/;

export function createHttpApp(api: RunloadApi, options: HttpAppOptions): H3 {
  const deps: PipelineDeps = {
    api,
    trustedProxies: options.trustedProxies ?? [],
    log: options.log ?? ((level, message, fields) => process.stderr.write(`${JSON.stringify({ level, message, ...fields })}\n`)),
    requestId: options.requestId ?? randomUUID,
  };
  const upload = { maxUploadBytes: options.maxUploadBytes, uploadDir: options.uploadDir, multipartSlackBytes: MULTIPART_SLACK_BYTES };
  const maxJsonBytes = options.maxJsonBytes ?? MAX_JSON_BYTES;
  const routes: RouteDef[] = [
    { method: 'POST', path: '/assets', kind: 'plain', handler: (ctx) => idempotentUpload(ctx, api, () => uploadAssetRoute(ctx, api, upload)) },
    { method: 'GET', path: '/assets', kind: 'plain', handler: listAssetsRoute(api) },
    { method: 'GET', path: '/assets/:id', kind: 'plain', handler: getAssetRoute(api) },
    { method: 'DELETE', path: '/assets/:id', kind: 'plain', handler: deleteAssetRoute(api) },
    { method: 'GET', path: '/assets/:id/content', kind: 'plain', handler: assetContentRoute(api) },
    { method: 'GET', path: '/apps', kind: 'plain', handler: listAppsRoute(api) },
    { method: 'GET', path: '/apps/:id', kind: 'plain', handler: describeAppRoute(api) },
    { method: 'POST', path: '/apps/:id', kind: 'run', handler: createRunRoute(api, true, maxJsonBytes) },
    { method: 'POST', path: '/runs', kind: 'run', handler: createRunRoute(api, false, maxJsonBytes) },
    { method: 'GET', path: '/runs', kind: 'plain', handler: listRunsRoute(api) },
    { method: 'GET', path: '/runs/:id', kind: 'plain', handler: getRunRoute(api) },
    { method: 'GET', path: '/runs/:id/events', kind: 'plain', handler: runEventsRoute(api) },
    { method: 'POST', path: '/runs/:id/cancel', kind: 'plain', handler: cancelRunRoute(api) },
    { method: 'GET', path: '/account', kind: 'plain', handler: accountRoute(api) },
    // Live previews.
    { method: 'GET', path: '/runs/:id/preview', kind: 'plain', handler: runPreviewRoute(api) },
  ];

  const app = new H3({
    // A malformed escape in a path reaches our routes, where it names nothing (404), instead of h3's own 400.
    allowMalformedURL: true,
    ...requestTimer(options.metrics),
    // The last net: whatever escapes the routes is answered in our form, never in h3's.
    onError: (error, event) => {
      const requestId = requestIdOf(event, deps);
      requestLog(event, deps)('error', 'request failed outside the routes', { error: String(error.cause ?? error) });
      const response = errorResponse(error.cause ?? frameworkError(error.status));
      return jsonResponse(response.status, response.body, { 'X-Request-Id': requestId, ...response.headers });
    },
  });
  app.use(corsMiddleware(options.corsOrigins ?? [], (event) => requestIdOf(event, deps)));
  const adminRoutes = [...adminRouteTable(api), ...(options.adminRoutes ?? [])];
  for (const route of adminRoutes) {
    const handle = adminPipeline(deps, route.scope, route.handler);
    const full = `${API_PREFIX}${ADMIN_PREFIX}${route.path}`;
    app.on(route.method, full, (event) => handle(event));
    if (route.method === 'GET') app.on('HEAD', full, async (event) => withoutBody(await handle(event)));
  }
  for (const route of routes) {
    const handle = apiRoute(deps, route.kind, route.handler);
    app.on(route.method, `${API_PREFIX}${route.path}`, (event) => handle(event));
    // RFC 9110 9.3.2: HEAD wherever GET, with the same status and headers and no body.
    if (route.method === 'GET') app.on('HEAD', `${API_PREFIX}${route.path}`, async (event) => withoutBody(await handle(event)));
  }
  const healthz = async (event: H3Event) => {
    const requestId = requestIdOf(event, deps);
    const health = await options.health().catch((error: unknown) => {
      requestLog(event, deps)('error', 'health check failed', { error: String(error) });
      return { ok: false };
    });
    const { ok, ...rest } = health;
    // Reads are served without a backend, so 200 stays; `degraded` tells a monitor no run can start.
    const status = !ok ? 'unavailable' : noBackendReachable((rest as Record<string, unknown>)['backends']) ? 'degraded' : 'ok';
    return jsonResponse(ok ? 200 : 503, { status, ...rest }, { 'X-Request-Id': requestId, 'Cache-Control': 'no-store' });
  };
  app.get('/healthz', healthz);
  app.on('HEAD', '/healthz', async (event) => withoutBody(await healthz(event)));

  registerDocumentationRoutes(app, { requestId: (event) => requestIdOf(event, deps), trustedProxies: deps.trustedProxies });
  registerConsoleRoutes(app, { root: options.consoleRoot, requestId: (event) => requestIdOf(event, deps) });
  const metrics = options.metrics;
  if (metrics) {
    const serveMetrics = async (event: H3Event) => {
      const { contentType, body } = await metrics.render();
      return new Response(body, { headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store', 'X-Request-Id': requestIdOf(event, deps) } });
    };
    app.get('/metrics', serveMetrics);
    app.on('HEAD', '/metrics', async (event) => withoutBody(await serveMetrics(event)));
  }

  // The Comfy API v2, on the same use cases (its routes, its fallback, /openapi-v2.json).
  registerComfyV2Routes(app, deps, { upload, maxJsonBytes, health: options.health });

  const matchers = [
    ...routes.map((r) => ({ method: r.method, regex: routePattern(`${API_PREFIX}${r.path}`) })),
    ...adminRoutes.map((r) => ({ method: r.method, regex: routePattern(`${API_PREFIX}${ADMIN_PREFIX}${r.path}`) })),
  ];
  const routeError = (event: H3Event): HttpError => {
    const path = event.url.pathname;
    const allowed = [...new Set(matchers.filter((m) => m.regex.test(path)).flatMap((m) => (m.method === 'GET' ? ['GET', 'HEAD'] : [m.method])))];
    if (path === '/healthz' || DOCUMENTATION_PATH.test(path) || (metrics && path === '/metrics')) allowed.push('GET', 'HEAD');
    return allowed.length > 0
      ? new HttpError(405, 'METHOD_NOT_ALLOWED', `${event.req.method} is not allowed on ${path}; use ${allowed.join(', ')}`, { Allow: allowed.join(', ') })
      : new HttpError(404, 'NOT_FOUND', `No route for ${event.req.method} ${path}`);
  };
  // Under /api/v1 every call is authenticated first, unknown routes included, so they carry the limit headers.
  const apiFallback = apiRoute(deps, 'plain', async (ctx) => {
    throw routeError(ctx.event);
  });
  // Under /api/v1/admin, an admin token is asked for instead of an API key.
  const adminFallback = adminPipeline(deps, null, async (ctx) => {
    throw routeError(ctx.event);
  });
  const adminBase = `${API_PREFIX}${ADMIN_PREFIX}`;
  app.all('/**', (event: H3Event) => {
    if (event.url.pathname.startsWith(`${adminBase}/`) || event.url.pathname === adminBase) return adminFallback(event);
    if (event.url.pathname.startsWith(`${API_PREFIX}/`) || event.url.pathname === API_PREFIX) return apiFallback(event);
    const response = errorResponse(routeError(event));
    return jsonResponse(response.status, response.body, { 'X-Request-Id': requestIdOf(event, deps), ...response.headers });
  });
  return app;
}

/** The executor's health (`{ available, backends }`) says no backend can take work. */
function noBackendReachable(backends: unknown): boolean {
  return typeof backends === 'object' && backends !== null && (backends as { available?: unknown }).available === false;
}
