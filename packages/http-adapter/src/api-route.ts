/**
 * The request pipeline every `/api/v1` route shares: request id, authentication, the general
 * limit, the handler, then one edge that turns results and errors into responses with the
 * rate-limit headers. Handlers never build error responses themselves.
 * @module
 */
import type { H3Event } from 'h3';
import { FastResponse } from 'srvx';
import { CoreError, type GpuQuotaState, type Principal, type RunloadApi, type WindowState, type Logger } from '@runload/core';
import { clientAddress } from './client-address.js';
import { isClientGone } from './client-gone.js';
import { errorResponse, type ErrorResponse } from './error-response.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import { requestIdOf, requestLog } from './request-log.js';

export interface RouteContext {
  readonly event: H3Event;
  readonly principal: Principal;
  readonly requestId: string;
  /** The request's logger: every line carries its request id, method and path. */
  readonly log: Logger;
}

/** What a handler returns: a JSON body, or a byte stream. */
export interface RouteResult {
  readonly status: number;
  readonly body?: unknown;
  readonly stream?: ReadableStream<Uint8Array>;
  readonly headers?: Record<string, string>;
  /** Limit windows the handler consumed (run endpoints). */
  readonly windows?: readonly WindowState[];
  readonly quota?: GpuQuotaState;
  /** Set when the handler already produced an error response (upload failure form). */
  readonly failure?: ErrorResponse;
  /** The error behind a failure, for the log. */
  readonly cause?: unknown;
}

export interface PipelineDeps {
  readonly api: RunloadApi;
  readonly trustedProxies: readonly string[];
  readonly log: Logger;
  readonly requestId: () => string;
}

/** `run` routes add the hour and GPU-quota headers of the run windows. */
export type RouteKind = 'plain' | 'run';

export function bearerToken(event: H3Event): string | null {
  const header = event.req.headers.get('authorization');
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * srvx's FastResponse, not the global Response: on Node it is written straight to the socket,
 * where undici's Response would be turned into a web stream first (a third of a poll's time).
 */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string>): Response {
  const text = JSON.stringify(body);
  // Set on every transport (Node's would add it, a web Response would not), so HEAD can repeat it.
  const length = String(Buffer.byteLength(text));
  return new FastResponse(text, { status, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': length, ...headers } });
}

/**
 * @param presentError how errors are answered: this API's forms by default; the Comfy API v2
 *   routes give their own envelope and codes.
 */
export function apiRoute(
  deps: PipelineDeps,
  kind: RouteKind,
  handler: (ctx: RouteContext) => Promise<RouteResult>,
  presentError: (error: unknown) => ErrorResponse = errorResponse,
) {
  return async (event: H3Event): Promise<Response> => {
    const requestId = requestIdOf(event, deps);
    const log = requestLog(event, deps);
    let windows: WindowState[] = [];
    let quota: GpuQuotaState | null = null;
    let principal: Principal | null = null;
    const finish = async (status: number, body: unknown, extra: Record<string, string>, stream?: ReadableStream<Uint8Array>) => {
      const hasHour = windows.some((w) => w.period === 'hour');
      if (kind === 'run' && principal && (!hasHour || quota === null)) {
        // The request failed before the run windows were consumed: show their state anyway.
        const view = await deps.api.runAdmission.peek(principal.account).catch((error: unknown) => {
          // The answer goes out without the hour and quota headers rather than not at all.
          log('warn', 'could not read the run limits for the response headers', { error: describeError(error) });
          return null;
        });
        if (view) {
          if (!hasHour) windows = [...windows, ...view.windows];
          quota = view.quota;
        }
      }
      const headers = { 'X-Request-Id': requestId, ...rateLimitHeaders(windows, kind === 'run' ? quota : null), ...extra };
      if (stream) return new FastResponse(stream, { status, headers });
      if (status === 204) return new FastResponse(null, { status, headers });
      return jsonResponse(status, body, headers);
    };
    try {
      principal = await deps.api.authenticate.execute(bearerToken(event), clientAddress(event, deps.trustedProxies));
      windows = [await deps.api.generalLimit.execute(principal)];
      const result = await handler({ event, principal, requestId, log });
      if (result.windows) windows = [...windows, ...result.windows];
      if (result.quota) quota = result.quota;
      if (result.failure && result.failure.status >= 500) {
        log('error', 'request failed', { error: describeError(result.cause) });
      }
      if (result.failure) return await finish(result.failure.status, result.failure.body, { ...result.failure.headers, ...result.headers });
      return await finish(result.status, result.body, result.headers ?? {}, result.stream);
    } catch (error) {
      if (isClientGone(error)) return clientGone(log, requestId, presentError);
      if (CoreError.is(error) && error.windows) windows = mergeWindows(windows, error.windows);
      const response = loggedErrorResponse(error, log, presentError);
      try {
        return await finish(response.status, response.body, response.headers);
      } catch (secondary) {
        log('error', 'could not build the error response', { error: String(secondary) });
        return jsonResponse(response.status, response.body, { 'X-Request-Id': requestId, ...response.headers });
      }
    }
  };
}

/** A client that went away mid-request: noted, and answered in case anything still listens. */
export function clientGone(log: Logger, requestId: string, present: (error: unknown) => ErrorResponse = errorResponse): Response {
  log('info', 'client went away');
  const ended = present(new CoreError('INVALID_REQUEST', 'The request ended early'));
  return jsonResponse(ended.status, ended.body, { 'X-Request-Id': requestId });
}

/** The error's response; a server-side failure is logged with its cause. */
export function loggedErrorResponse(error: unknown, log: Logger, present: (error: unknown) => ErrorResponse = errorResponse): ErrorResponse {
  const response = present(error);
  if (response.status >= 500) log(response.status === 500 ? 'error' : 'warn', 'request failed', { error: describeError(error) });
  return response;
}

/** Later states of the same window replace earlier ones. */
export function mergeWindows(current: readonly WindowState[], later: readonly WindowState[]): WindowState[] {
  const key = (w: WindowState) => `${w.name}:${w.subject}`;
  const map = new Map(current.map((w) => [key(w), w]));
  for (const w of later) map.set(key(w), w);
  return [...map.values()];
}

export function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
