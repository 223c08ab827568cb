/**
 * The admin API's pipeline: every `/api/v1/admin/…` route authenticates an admin token (never an
 * account's API key), counts the token's own general window, checks the scope the route declares,
 * then runs its handler; errors and results leave through the same edge as the account routes.
 *
 * Declaring an admin route is one object in a table (see `admin-routes.ts`):
 * `{ method: 'GET', path: '/backends', scope: 'backends', handler: async (ctx) => ({ status: 200, body }) }`.
 * A GET is also allowed to tokens with the `read` scope; `*` allows everything.
 * @module
 */
import type { H3Event } from 'h3';
import { FastResponse } from 'srvx';
import { CoreError, tokenAuthor, type AdminPrincipal, type AdminScope, type ChangeAuthor, type Logger, type WindowState } from '@runload/core';
import { bearerToken, describeError, jsonResponse, mergeWindows, type PipelineDeps, type RouteResult } from './api-route.js';
import { clientAddress } from './client-address.js';
import { isClientGone } from './client-gone.js';
import { errorResponse } from './error-response.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import { requestIdOf, requestLog } from './request-log.js';

export const ADMIN_PREFIX = '/admin';

export interface AdminRouteContext {
  readonly event: H3Event;
  readonly admin: AdminPrincipal;
  /** Who the audit trail names for a change this request makes: `token:<id>` and the request id. */
  readonly author: ChangeAuthor;
  readonly requestId: string;
  readonly log: Logger;
}

export type AdminMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One admin route: its method, its path under `/api/v1/admin` (`:id` for a parameter), the scope it needs. */
export interface AdminRoute {
  readonly method: AdminMethod;
  readonly path: string;
  readonly scope: AdminScope;
  readonly handler: (ctx: AdminRouteContext) => Promise<RouteResult>;
}

/**
 * The request handler of an admin route; with `scope` null (the fallback for unknown admin
 * paths) any valid token may reach the handler.
 */
export function adminPipeline(deps: PipelineDeps, scope: AdminScope | null, handler: AdminRoute['handler']) {
  return async (event: H3Event): Promise<Response> => {
    const requestId = requestIdOf(event, deps);
    const log = requestLog(event, deps);
    let windows: WindowState[] = [];
    const finish = (status: number, body: unknown, extra: Record<string, string>, stream?: ReadableStream<Uint8Array>) => {
      const headers = { 'X-Request-Id': requestId, ...rateLimitHeaders(windows, null), ...extra };
      if (stream) return new FastResponse(stream, { status, headers });
      if (status === 204) return new FastResponse(null, { status, headers });
      return jsonResponse(status, body, headers);
    };
    try {
      const auth = deps.api.authenticateAdmin;
      const admin = await auth.execute(bearerToken(event), clientAddress(event, deps.trustedProxies));
      windows = [await auth.consume(admin)];
      const method = event.req.method.toUpperCase();
      if (scope !== null) auth.requireScope(admin, scope, method === 'GET' || method === 'HEAD');
      const result = await handler({ event, admin, author: tokenAuthor(admin.token.id, requestId), requestId, log });
      if (result.failure) return finish(result.failure.status, result.failure.body, { ...result.failure.headers, ...result.headers });
      return finish(result.status, result.body, result.headers ?? {}, result.stream);
    } catch (error) {
      if (isClientGone(error)) {
        log('info', 'client went away');
        return jsonResponse(400, { error: { code: 'INVALID_REQUEST', message: 'The request ended early' } }, { 'X-Request-Id': requestId });
      }
      if (CoreError.is(error) && error.windows) windows = mergeWindows(windows, error.windows);
      const response = errorResponse(error);
      if (response.status >= 500) log(response.status === 500 ? 'error' : 'warn', 'request failed', { error: describeError(error) });
      return finish(response.status, response.body, response.headers);
    }
  };
}
