/**
 * Cross-origin calls from the configured browser origins (`RUNLOAD_CORS_ORIGINS`), preflight
 * included. With no origins configured nothing is added, so browsers refuse other origins.
 * @module
 */
import type { H3Event, Middleware } from 'h3';
import { FastResponse } from 'srvx';
import { HEADERS } from '@runload/api-schema';

const ALLOWED_METHODS = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id, Range, Last-Event-ID';
/** Every response header the API documents, so a page can read the limits, `Retry-After` and `Location`. */
const EXPOSED_HEADERS = Object.keys(HEADERS).join(', ');
const PREFLIGHT_MAX_AGE_SECONDS = 600;

function allowedOrigin(event: H3Event, origins: ReadonlySet<string>): string | null {
  const origin = event.req.headers.get('origin');
  return origin !== null && origins.has(origin) ? origin : null;
}

export function corsMiddleware(origins: readonly string[], requestId: (event: H3Event) => string): Middleware {
  // Browsers send `Origin` without a trailing slash; a configured one may carry it.
  const allowed = new Set(origins.map((o) => o.trim().replace(/\/+$/, '')).filter((o) => o.length > 0));
  return async (event, next) => {
    const origin = allowed.size > 0 ? allowedOrigin(event, allowed) : null;
    if (origin === null) return next();
    if (event.req.method === 'OPTIONS' && event.req.headers.has('access-control-request-method')) {
      return new FastResponse(null, {
        status: 204,
        headers: {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': ALLOWED_METHODS,
          'Access-Control-Allow-Headers': ALLOWED_HEADERS,
          'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
          Vary: 'Origin',
          'X-Request-Id': requestId(event),
        },
      });
    }
    const response = await next();
    if (response instanceof Response) {
      response.headers.set('Access-Control-Allow-Origin', origin);
      response.headers.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      response.headers.append('Vary', 'Origin');
    }
    return response;
  };
}
