/**
 * Mounts the Comfy API v2 under `/api/v2` on the HTTP app: the same pipeline as `/api/v1`
 * (authentication, the general limit, rate-limit headers, request ids), its own error envelope,
 * an authenticated fallback for unknown routes, `GET /api/v2/health` without a key, and its
 * OpenAPI document at `/openapi-v2.json`.
 * @module
 */
import type { H3, H3Event } from 'h3';
import { buildComfyV2Document } from '@runload/api-schema';
import { apiRoute, jsonResponse, type PipelineDeps, type RouteContext, type RouteKind, type RouteResult } from '../api-route.js';
import { deleteAssetRoute } from '../asset-list-routes.js';
import { HttpError } from '../error-response.js';
import { withoutBody } from '../head-response.js';
import { requestIdOf } from '../request-log.js';
import { routePattern } from '../route-pattern.js';
import { assetContentRoute } from '../routes.js';
import { eventStreamRoute } from '../run-events-route.js';
import type { UploadOptions } from '../upload-options.js';
import { v2ErrorResponse } from './v2-errors.js';
import { v2EventFrames } from './v2-events.js';
import { V2_PREFIX } from './v2-presenters.js';
import {
  assetFromHashRoute,
  cancelJobRoute,
  getJobRoute,
  getV2AssetRoute,
  headByHashRoute,
  listJobsRoute,
  originOf,
  postAssetsRoute,
  postJobsRoute,
} from './v2-routes.js';

export interface ComfyV2Options {
  readonly upload: UploadOptions;
  readonly maxJsonBytes: number;
  readonly health: () => Promise<{ ok: boolean } & Record<string, unknown>>;
}

interface V2Route {
  readonly method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  readonly path: string;
  readonly kind: RouteKind;
  readonly handler: (ctx: RouteContext) => Promise<RouteResult>;
}

export function registerComfyV2Routes(app: H3, deps: PipelineDeps, options: ComfyV2Options): void {
  const { api } = deps;
  const routes: V2Route[] = [
    { method: 'POST', path: '/assets', kind: 'plain', handler: postAssetsRoute(api, options.upload) },
    { method: 'POST', path: '/assets/from-hash', kind: 'plain', handler: assetFromHashRoute(api, options.maxJsonBytes) },
    { method: 'HEAD', path: '/assets/by-hash/:hash', kind: 'plain', handler: headByHashRoute(api) },
    { method: 'GET', path: '/assets/:id', kind: 'plain', handler: getV2AssetRoute(api) },
    { method: 'DELETE', path: '/assets/:id', kind: 'plain', handler: deleteAssetRoute(api) },
    { method: 'GET', path: '/assets/:id/content', kind: 'plain', handler: assetContentRoute(api, v2ErrorResponse) },
    { method: 'POST', path: '/jobs', kind: 'run', handler: postJobsRoute(api, options.maxJsonBytes) },
    { method: 'GET', path: '/jobs', kind: 'plain', handler: listJobsRoute(api) },
    { method: 'GET', path: '/jobs/:id', kind: 'plain', handler: getJobRoute(api) },
    { method: 'GET', path: '/jobs/:id/events', kind: 'plain', handler: eventStreamRoute(api, (ctx, runId) => v2EventFrames(api, ctx.principal, runId, originOf(ctx))) },
    { method: 'POST', path: '/jobs/:id/cancel', kind: 'plain', handler: cancelJobRoute(api) },
  ];
  for (const route of routes) {
    const handle = apiRoute(deps, route.kind, route.handler, v2ErrorResponse);
    const path = `${V2_PREFIX}${route.path}`;
    if (route.method === 'HEAD') {
      app.on('HEAD', path, async (event) => withoutBody(await handle(event)));
      continue;
    }
    app.on(route.method, path, (event) => handle(event));
    if (route.method === 'GET') app.on('HEAD', path, async (event) => withoutBody(await handle(event)));
  }

  const health = async (event: H3Event) => {
    const ok = await options.health().then((h) => h.ok, () => false);
    return jsonResponse(ok ? 200 : 503, { status: ok ? 'ok' : 'unavailable' }, { 'X-Request-Id': requestIdOf(event, deps), 'Cache-Control': 'no-store' });
  };
  app.get(`${V2_PREFIX}/health`, health);
  app.on('HEAD', `${V2_PREFIX}/health`, async (event) => withoutBody(await health(event)));

  const document = (event: H3Event) => jsonResponse(200, buildComfyV2Document(), { 'X-Request-Id': requestIdOf(event, deps) });
  app.get('/openapi-v2.json', document);
  app.on('HEAD', '/openapi-v2.json', async (event) => withoutBody(await document(event)));

  // Unknown routes and wrong methods under /api/v2: authenticated and limited first, then 404 or 405.
  const matchers = [...routes, { method: 'GET' as const, path: '/health' }].map((r) => ({ method: r.method, regex: routePattern(`${V2_PREFIX}${r.path}`) }));
  const fallback = apiRoute(
    deps,
    'plain',
    async (ctx) => {
      const path = ctx.event.url.pathname;
      const allowed = [...new Set(matchers.filter((m) => m.regex.test(path)).flatMap((m) => (m.method === 'GET' ? ['GET', 'HEAD'] : [m.method])))];
      if (allowed.length === 0) throw new HttpError(404, 'NOT_FOUND', `No route for ${ctx.event.req.method} ${path}`);
      throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${ctx.event.req.method} is not allowed on ${path}; use ${allowed.join(', ')}`, { Allow: allowed.join(', ') });
    },
    v2ErrorResponse,
  );
  app.all(`${V2_PREFIX}/**`, (event) => fallback(event));
}
