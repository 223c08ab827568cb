/**
 * The Comfy API v2 routes: each turns a request into a call of the same use cases as `/api/v1`
 * and answers with the v2's shapes. Jobs are runs, assets are the same assets.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { PageQuery, checkRequest, FromHashBody, JobBody } from '@runload/api-schema';
import { blake3OfName, canonicalJson, CoreError, type RunloadApi, type Run, type Workflow } from '@runload/core';
import type { RouteContext, RouteResult } from '../api-route.js';
import type { ErrorResponse } from '../error-response.js';
import { fingerprint, idempotently, idempotentUpload } from '../idempotency.js';
import { readJsonBody } from '../read-json-body.js';
import { idParam, param } from '../routes.js';
import { receiveUpload } from '../upload-asset-route.js';
import type { UploadOptions } from '../upload-options.js';
import { pageLimit, readQuery } from '../validate-request.js';
import { v2Error } from './v2-errors.js';
import { presentJob, presentV2Asset } from './v2-presenters.js';

/** The origin the absolute content URLs are written with: the one the client called. */
export function originOf(ctx: RouteContext): string {
  return ctx.event.url.origin;
}

const assetNotFound = (ctx: RouteContext) => () => new CoreError('ASSET_NOT_FOUND', `Asset ${param(ctx.event, 'id')} not found`);
const jobNotFound = (ctx: RouteContext) => () => new CoreError('RUN_NOT_FOUND', `Job ${param(ctx.event, 'id')} not found`);

/** A body checked against its schema; the first problem is the message. @throws CoreError INVALID_REQUEST */
function checked<T>(schema: Parameters<typeof checkRequest>[0], body: unknown, what: string): T {
  const problem = checkRequest(schema, body)[0];
  if (problem) throw new CoreError('INVALID_REQUEST', `${what}: ${problem.path || 'the body'} ${problem.message}`);
  return body as T;
}

/** An upload refused in this API's upload form, told in the v2 envelope. */
function v2UploadFailure(failure: ErrorResponse): ErrorResponse {
  const body = failure.body as { error?: unknown; reason?: string };
  const text = body.reason ?? (typeof body.error === 'string' ? body.error : 'Upload failed');
  if (failure.status === 413) return v2Error(413, 'payload_too_large', text);
  if (failure.status === 415) return v2Error(415, 'unsupported_media_type', text);
  if (failure.status >= 500) return v2Error(failure.status, 'internal_error', 'The file could not be stored');
  return v2Error(failure.status, 'invalid_request', text === 'No file uploaded' ? 'The body needs a `file` part' : text);
}

/** A replayed answer also carries the v2's name for it, beside this API's. */
function withV2Replay(result: RouteResult): RouteResult {
  return result.headers?.['Idempotent-Replayed'] === 'true' ? { ...result, headers: { ...result.headers, 'Idempotency-Replayed': 'true' } } : result;
}

export function postAssetsRoute(api: RunloadApi, upload: UploadOptions) {
  return async (ctx: RouteContext): Promise<RouteResult> =>
    withV2Replay(await idempotentUpload(
      ctx,
      api,
      async () => {
        const { result, fields } = await receiveUpload(ctx, api, upload);
        if (result.failure) return { ...result, failure: v2UploadFailure(result.failure) };
        const asset = await api.getAsset.execute(ctx.principal, (result.body as { asset_id: string }).asset_id);
        const expected = fields['expected_hash'];
        // The client's hash is checked, never trusted: bytes that differ leave nothing behind.
        if (expected !== undefined && blake3OfName(expected) !== asset.blake3) {
          await api.uploadAsset.remove(asset);
          throw new CoreError('HASH_MISMATCH', `The bytes received do not have the hash ${expected}`);
        }
        const createdNew = await api.contentByHash.isOnlyCopy(asset);
        return { status: createdNew ? 201 : 200, body: presentV2Asset(asset, originOf(ctx), createdNew) };
      },
      'POST /api/v2/assets',
      (body) => (body as { id: string }).id,
    ));
}

export function assetFromHashRoute(api: RunloadApi, maxJsonBytes: number) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const body = checked<{ hash: string; file_path?: string }>(FromHashBody, await readJson(ctx, maxJsonBytes), 'from-hash takes { hash, file_path? }');
    const asset = await api.contentByHash.mint(ctx.principal, body.hash, body.file_path ?? null);
    return { status: 201, body: presentV2Asset(asset, originOf(ctx), false) };
  };
}

export function headByHashRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const hash = param(ctx.event, 'hash');
    if (!(await api.contentByHash.find(ctx.principal, hash))) throw new CoreError('BLOB_NOT_FOUND', `No content of yours has the hash ${hash}`);
    return { status: 200, body: {} };
  };
}

export function getV2AssetRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const asset = await api.getAsset.execute(ctx.principal, idParam(ctx.event, assetNotFound(ctx)));
    return { status: 200, body: presentV2Asset(asset, originOf(ctx)) };
  };
}

function readJson(ctx: RouteContext, maxJsonBytes: number): Promise<unknown> {
  return readJsonBody(ctx.event.req, maxJsonBytes, ctx.event.runtime?.node?.req as IncomingMessage | undefined);
}

export function postJobsRoute(api: RunloadApi, maxJsonBytes: number) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const body = checked<{ workflow: Record<string, unknown> }>(JobBody, await readJson(ctx, maxJsonBytes), 'A job is { workflow, extra_data? }');
    const origin = originOf(ctx);
    const result = await idempotently(ctx, api, () => fingerprint('POST /api/v2/jobs', canonicalJson(body.workflow)), async (hold) => {
      // A new job waits: its progress is none yet, so the graph sent stands for its version's.
      const respond = (run: Run) => ({ status: 201, body: presentJob(run, body.workflow as Workflow, null, origin, api.limits.retention), headers: {} });
      const created = await api.submitGraph.execute({ principal: ctx.principal, workflow: body.workflow, ...(hold ? { idempotency: { hold, respond } } : {}) });
      return { ...respond(created.run), windows: created.windows, quota: created.quota };
    });
    return withV2Replay(result);
  };
}

export function listJobsRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const query = readQuery<PageQuery>(PageQuery, ctx.event.url.searchParams);
    const limit = pageLimit(query.limit);
    const page = await api.listRuns.execute(ctx.principal, { ...(limit !== undefined ? { limit } : {}), cursor: query.cursor ?? null });
    const origin = originOf(ctx);
    const workflows = await api.runWorkflows.ofAll(page.runs);
    const jobs = page.runs.map((r) => presentJob(r, workflows.get(r.appVersionId) ?? {}, null, origin, api.limits.retention));
    return { status: 200, body: { jobs, next_cursor: page.nextCursor } };
  };
}

export function getJobRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const view = await api.getRun.execute(ctx.principal, idParam(ctx.event, jobNotFound(ctx)));
    const workflow = await api.runWorkflows.of(view.run);
    return { status: 200, body: presentJob(view.run, workflow, view.queuePosition, originOf(ctx), api.limits.retention) };
  };
}

export function cancelJobRoute(api: RunloadApi) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const run = await api.cancelRun.execute(ctx.principal, idParam(ctx.event, jobNotFound(ctx)));
    return { status: 200, body: presentJob(run, await api.runWorkflows.of(run), null, originOf(ctx), api.limits.retention) };
  };
}
