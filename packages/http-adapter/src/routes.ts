/** The `/api/v1` routes: each turns a request into a use-case call and a RouteResult. */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { H3Event } from 'h3';
import { CoreError, isUuid, type ByteRange, type Run, type RunloadApi } from '@runload/core';
import type { RouteContext, RouteResult } from './api-route.js';
import { errorResponse, type ErrorResponse } from './error-response.js';
import { PageQuery } from '@runload/api-schema';
import { pollUrl, presentAccount, presentAppSummary, presentAppVersion, presentAsset, presentCreatedRun, presentRun } from './presenters.js';
import { readJsonBody } from './read-json-body.js';
import { canonicalJson, fingerprint, idempotently } from './idempotency.js';
import { checkRunBody, pageLimit, readQuery } from './validate-request.js';

/** A path parameter, decoded once; a malformed escape is kept as sent (it names nothing anyway). */
export function param(event: H3Event, name: string): string {
  const raw = String((event.context.params as Record<string, string> | undefined)?.[name] ?? '');
  try {
    return decodeURIComponent(raw);
  } catch (error) {
    if (!(error instanceof URIError)) throw error;
    return raw;
  }
}

/** A path id that is not a UUID cannot name anything. */
export function idParam(event: H3Event, notFound: () => CoreError): string {
  const id = param(event, 'id');
  if (!isUuid(id)) throw notFound();
  return id.toLowerCase();
}

export function createRunRoute(api: RunloadApi, fromPath: boolean, maxJsonBytes: number) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const body = await readJsonBody(ctx.event.req, maxJsonBytes, ctx.event.runtime?.node?.req as IncomingMessage | undefined);
    checkRunBody(body, !fromPath);
    const appVersionId = fromPath ? param(ctx.event, 'id') : null;
    const endpoint = fromPath ? `POST /apps/${String(appVersionId).toLowerCase()}` : 'POST /runs';
    // Idempotency-Key: the run and this response are written in one transaction (CONTRACT 8).
    return idempotently(ctx, api, () => fingerprint(endpoint, canonicalJson(body)), async (hold) => {
      const respond = (run: Run) => ({ status: 201, body: presentCreatedRun(run), headers: { Location: pollUrl(run.id) } });
      const created = await api.createRun.execute({ principal: ctx.principal, appVersionId, body, ...(hold ? { idempotency: { hold, respond } } : {}) });
      return { ...respond(created.run), windows: created.windows, quota: created.quota };
    });
  };
}

export function describeAppRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const version = await api.describeAppVersion.execute(param(ctx.event, 'id'));
    return { status: 200, body: presentAppVersion(version) };
  };
}

export function listAppsRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const query = readQuery<PageQuery>(PageQuery, ctx.event.url.searchParams);
    const limit = pageLimit(query.limit);
    const page = await api.listApps.execute({ ...(limit !== undefined ? { limit } : {}), cursor: query.cursor ?? null });
    return { status: 200, body: { apps: page.versions.map(presentAppSummary), next_cursor: page.nextCursor } };
  };
}

export function getRunRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const id = idParam(ctx.event, () => new CoreError('RUN_NOT_FOUND', `Run ${param(ctx.event, 'id')} not found`));
    const view = await api.getRun.execute(ctx.principal, id);
    return { status: 200, body: presentRun(view.run, view.queuePosition) };
  };
}

export function listRunsRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const query = readQuery<PageQuery>(PageQuery, ctx.event.url.searchParams);
    const limit = pageLimit(query.limit);
    const page = await api.listRuns.execute(ctx.principal, { ...(limit !== undefined ? { limit } : {}), cursor: query.cursor ?? null });
    return { status: 200, body: { runs: page.runs.map((r) => presentRun(r, null)), next_cursor: page.nextCursor } };
  };
}

export function cancelRunRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const id = idParam(ctx.event, () => new CoreError('RUN_NOT_FOUND', `Run ${param(ctx.event, 'id')} not found`));
    const run = await api.cancelRun.execute(ctx.principal, id);
    return { status: 200, body: presentRun(run, null) };
  };
}

export function getAssetRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const id = idParam(ctx.event, () => new CoreError('ASSET_NOT_FOUND', `Asset ${param(ctx.event, 'id')} not found`));
    return { status: 200, body: presentAsset(await api.getAsset.execute(ctx.principal, id)) };
  };
}

/** Parses `bytes=a-b`, `bytes=a-` and `bytes=-n`; anything else (or `b` before `a`) means the whole file. */
function parseRange(header: string | null, size: number): ByteRange | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const range = { start: Number(match[1]), end: match[2] === '' ? Number.MAX_SAFE_INTEGER : Number(match[2]) };
  // RFC 9110 14.1.1: a last position before the first makes the range invalid, and an invalid Range is ignored.
  return range.end < range.start ? null : range;
}

/** @param presentError how a 416 is answered (the Comfy API v2 routes have their own envelope) */
export function assetContentRoute(api: RunloadApi, presentError: (error: unknown) => ErrorResponse = errorResponse) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const id = idParam(ctx.event, () => new CoreError('ASSET_NOT_FOUND', `Asset ${param(ctx.event, 'id')} not found`));
    const asset = await api.getAsset.execute(ctx.principal, id);
    let range: ByteRange | null;
    try {
      range = parseRange(ctx.event.req.headers.get('range'), asset.size);
      const content = await api.getAsset.content(ctx.principal, id, range);
      const stream = Readable.toWeb(Readable.from(content.body)) as ReadableStream<Uint8Array>;
      const headers: Record<string, string> = {
        'Content-Type': asset.contentType,
        'Accept-Ranges': 'bytes',
        'Content-Disposition': `inline; filename="${asset.filename.replace(/[^\x20-\x7e]|"/g, '_')}"`,
      };
      if (content.range) {
        headers['Content-Range'] = `bytes ${content.range.start}-${content.range.end}/${asset.size}`;
        headers['Content-Length'] = String(content.range.end - content.range.start + 1);
        return { status: 206, stream, headers };
      }
      headers['Content-Length'] = String(asset.size);
      return { status: 200, stream, headers };
    } catch (error) {
      if (CoreError.hasCode(error, 'RANGE_NOT_SATISFIABLE')) {
        // RFC 9110 15.5.17: a 416 names the current length of the representation.
        const refused = presentError(error);
        return { status: refused.status, failure: { ...refused, headers: { ...refused.headers, 'Content-Range': `bytes */${asset.size}` } } };
      }
      throw error;
    }
  };
}

export function accountRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => ({ status: 200, body: presentAccount(await api.accountOverview.execute(ctx.principal)) });
}
