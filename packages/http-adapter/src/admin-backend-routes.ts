/**
 * The pool in the admin API: backends listed, added, changed (drain, activate, labels, depth),
 * removed; a GPU machine's registration and its heartbeat; the pool at a glance. Bodies are
 * checked against their schemas; a URL, label or depth that cannot be used is 422 INVALID_REQUEST.
 * Credentials are taken, never shown (`has_auth`).
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { TSchema } from '@sinclair/typebox';
import { AddBackendBody, ChangeBackendBody, checkRequest, RegisterBackendBody } from '@runload/api-schema';
import { checkLabels, CoreError, parseCredentials, type BackendCredentials, type RunloadApi } from '@runload/core';
import type { AdminRoute, AdminRouteContext } from './admin-route.js';
import type { RouteResult } from './api-route.js';
import { errorResponse } from './error-response.js';
import { presentBackend } from './presenters.js';
import { readJsonBody } from './read-json-body.js';

type Json = Record<string, unknown>;

/** The body as its schema describes it. @throws CoreError INVALID_REQUEST naming the first problem */
async function body(ctx: AdminRouteContext, schema: TSchema): Promise<Json> {
  const parsed = await readJsonBody(ctx.event.req, undefined, ctx.event.runtime?.node?.req as IncomingMessage | undefined);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CoreError('INVALID_REQUEST', 'The request body must be a JSON object');
  const problem = checkRequest(schema, parsed)[0];
  if (problem) throw new CoreError('INVALID_REQUEST', `${problem.path.slice(1) || 'the body'} is not valid: ${problem.message}`);
  return parsed as Json;
}

function param(ctx: AdminRouteContext, name: string): string {
  return String((ctx.event.context.params as Record<string, string> | undefined)?.[name] ?? '');
}

function credentials(auth: unknown): BackendCredentials | null | undefined {
  if (auth === undefined) return undefined;
  const a = auth as { header?: string; basic?: string };
  return parseCredentials({ header: a.header, basic: a.basic });
}

/** What the pool's use cases refuse in a body that is well-formed (a URL with credentials, a bad label): 422. */
async function unusableAs422(handler: () => Promise<RouteResult>): Promise<RouteResult> {
  try {
    return await handler();
  } catch (error) {
    if (!CoreError.hasCode(error, 'INVALID_REQUEST')) throw error;
    return { status: 422, failure: { ...errorResponse(error), status: 422 } };
  }
}

export function backendAdminRoutes(api: RunloadApi): AdminRoute[] {
  return [
    {
      method: 'POST',
      path: '/backends/register',
      scope: 'backends:register',
      handler: async (ctx) => {
        const b = await body(ctx, RegisterBackendBody);
        return unusableAs422(async () => {
          const auth = credentials(b['auth']);
          const { view, created } = await api.backends.register({
            url: String(b['url']),
            ...(b['labels'] !== undefined ? { labels: checkLabels(b['labels']) } : {}),
            ...(b['ttl_seconds'] !== undefined ? { ttlSeconds: Number(b['ttl_seconds']) } : {}),
            ...(auth !== undefined ? { auth } : {}),
          }, ctx.author);
          return { status: created ? 201 : 200, body: presentBackend(view) };
        });
      },
    },
    {
      method: 'DELETE',
      path: '/backends/register',
      scope: 'backends:register',
      handler: async (ctx) => {
        const url = new URL(ctx.event.req.url).searchParams.get('url');
        if (!url) throw new CoreError('INVALID_REQUEST', 'url is required: the URL the machine registered');
        return unusableAs422(async () => ({ status: 200, body: presentBackend(await api.backends.deregister(url, ctx.author)) }));
      },
    },
    {
      method: 'GET',
      path: '/backends',
      scope: 'backends',
      handler: async () => ({ status: 200, body: { backends: (await api.backends.list()).map(presentBackend) } }),
    },
    {
      method: 'POST',
      path: '/backends',
      scope: 'backends',
      handler: async (ctx) => {
        const b = await body(ctx, AddBackendBody);
        return unusableAs422(async () => {
          const auth = credentials(b['auth']);
          const view = await api.backends.add({
            url: String(b['url']),
            labels: checkLabels(b['labels']),
            depth: (b['depth'] as number | null | undefined) ?? null,
            ...(auth !== undefined ? { auth } : {}),
          }, ctx.author);
          return { status: 201, body: presentBackend(view) };
        });
      },
    },
    {
      method: 'GET',
      path: '/backends/:id',
      scope: 'backends',
      handler: async (ctx) => ({ status: 200, body: presentBackend(await api.backends.get(param(ctx, 'id'))) }),
    },
    {
      method: 'PATCH',
      path: '/backends/:id',
      scope: 'backends',
      handler: async (ctx) => {
        const b = await body(ctx, ChangeBackendBody);
        return unusableAs422(async () => {
          const view = await api.backends.change(param(ctx, 'id'), {
            ...(b['state'] !== undefined ? { state: b['state'] as 'active' | 'draining' } : {}),
            ...(b['labels'] !== undefined ? { labels: checkLabels(b['labels']) } : {}),
            ...(b['depth'] !== undefined ? { depth: b['depth'] as number | null } : {}),
          }, ctx.author);
          return { status: 200, body: presentBackend(view) };
        });
      },
    },
    {
      method: 'DELETE',
      path: '/backends/:id',
      scope: 'backends',
      handler: async (ctx) => {
        const force = new URL(ctx.event.req.url).searchParams.get('force') === 'true';
        await api.backends.remove(param(ctx, 'id'), { force }, ctx.author);
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      path: '/pool',
      scope: 'backends',
      handler: async () => {
        const r = await api.poolOverview.report(new Date());
        return {
          status: 200,
          body: { backends: r.backends.map(presentBackend), queued: r.queued, running: r.running, waiting_for_capacity: r.waitingForCapacity, waiting_for_capability: r.waitingForCapability },
        };
      },
    },
  ];
}
