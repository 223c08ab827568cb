/**
 * Every operation of the API as data: path, parameters, body and each response with its schema,
 * error codes and headers. The HTTP adapter validates requests with the same schemas; the
 * OpenAPI document is generated from this table.
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Account } from './account.js';
import { AppList, AppVersion } from './app.js';
import { Asset, AssetList } from './asset.js';
import { PlainError, structuredError, UploadFailure, type ErrorCode } from './errors.js';
import { API_HEADERS, RUN_HEADERS, type HeaderName } from './headers.js';
import { Health } from './health.js';
import { AppRunBody, AssetListQuery, PageQuery, RunBody, UploadBody } from './requests.js';
import { CreatedRun, Run, RunList } from './run.js';
import { ADMIN_OPERATIONS } from './admin-operations.js';
import type { Operation, ResponseSpec } from './operation.js';

export type { Operation, ResponseSpec } from './operation.js';

const json = (schema: TSchema) => ({ 'application/json': schema });
const fails = (description: string, codes: readonly ErrorCode[], headers: readonly HeaderName[] = []): ResponseSpec => ({
  description: `${description} (${codes.join(', ')})`,
  content: json(structuredError(codes)),
  headers,
});
const binary = Type.String({ format: 'binary' });

const runCreation = (path: string, operationId: string, body: TSchema, summary: string, pathParams?: Record<string, string>): Operation => ({
  operationId,
  method: 'post',
  path,
  tag: 'runs',
  summary,
  description:
    'Queues a run. Checked in this order: the body, the app version, the inputs, backend reachability, then the run limits and the GPU quota.',
  authenticated: true,
  runLimits: true,
  idempotent: true,
  ...(pathParams ? { pathParams } : {}),
  jsonBody: body,
  responses: {
    201: { description: 'The run is queued.', content: json(CreatedRun), headers: ['Location', 'Idempotent-Replayed'] },
    400: fails('The body is not valid JSON, not an object, or lacks an `inputs` object', ['INVALID_REQUEST']),
    404: fails('The app version never existed', ['APP_VERSION_NOT_FOUND']),
    409: fails('A request with this Idempotency-Key is still being processed', ['IDEMPOTENCY_KEY_IN_USE'], ['Retry-After']),
    410: fails('The app version was deleted', ['APP_DELETED']),
    413: fails('The JSON body is over 1 MiB', ['PAYLOAD_TOO_LARGE']),
    422: fails(
      'An input is unknown, of the wrong type or names an asset that is not yours of the right kind (`details` lists each); a refused webhook; an Idempotency-Key reused for another request',
      ['INVALID_INPUT', 'INVALID_REQUEST', 'IDEMPOTENCY_KEY_REUSED'],
    ),
    429: fails('A rate limit or the GPU quota; `Retry-After` says when to retry', ['RATE_LIMITED', 'GPU_QUOTA_EXCEEDED'], ['Retry-After']),
    503: fails('No ComfyUI backend is reachable, none can run this workflow, or the database is unreachable', ['SERVICE_UNAVAILABLE'], ['Retry-After']),
  },
});

const runId = { id: 'The run id (a UUID; anything else is not found).' };
const assetId = { id: 'The asset id (a UUID; anything else is not found).' };

export const OPERATIONS: readonly Operation[] = [
  {
    operationId: 'uploadAsset',
    method: 'post',
    path: '/api/v1/assets',
    tag: 'assets',
    summary: 'Upload an image, video or audio file',
    description: 'A multipart body with one part named `file`. The type is read from the bytes, never from the name.',
    authenticated: true,
    idempotent: true,
    multipartBody: UploadBody,
    responses: {
      201: { description: 'The stored asset.', content: json(Asset), headers: ['Idempotent-Replayed'] },
      400: {
        description: 'No `file` part (`No file uploaded`), more than one file part, or a malformed multipart body',
        content: json(Type.Union([PlainError, UploadFailure, structuredError(['INVALID_REQUEST'])])),
      },
      409: fails('A request with this Idempotency-Key is still being processed', ['IDEMPOTENCY_KEY_IN_USE'], ['Retry-After']),
      413: { description: 'Over the upload size cap (`reason: "File too large"`)', content: json(Type.Union([UploadFailure, structuredError(['PAYLOAD_TOO_LARGE'])])) },
      415: { description: 'Not image, video or audio by its bytes, or empty (`reason: "Unsupported file type"`)', content: json(UploadFailure) },
      422: fails('An Idempotency-Key reused for another upload', ['IDEMPOTENCY_KEY_REUSED']),
      500: { description: 'The file could not be stored', content: json(Type.Union([UploadFailure, structuredError(['INTERNAL_ERROR'])])) },
    },
  },
  {
    operationId: 'listAssets',
    method: 'get',
    path: '/api/v1/assets',
    tag: 'assets',
    summary: 'List your assets, newest first',
    authenticated: true,
    query: AssetListQuery,
    responses: {
      200: { description: 'A page of assets.', content: json(AssetList) },
      400: fails('A bad `limit`, `cursor`, `kind` or `origin`', ['INVALID_REQUEST']),
    },
  },
  {
    operationId: 'getAsset',
    method: 'get',
    path: '/api/v1/assets/{id}',
    tag: 'assets',
    summary: 'Read an asset',
    authenticated: true,
    pathParams: assetId,
    responses: { 200: { description: 'The asset.', content: json(Asset) }, 404: fails('No such asset of yours', ['ASSET_NOT_FOUND']) },
  },
  {
    operationId: 'deleteAsset',
    method: 'delete',
    path: '/api/v1/assets/{id}',
    tag: 'assets',
    summary: 'Delete an asset',
    authenticated: true,
    pathParams: assetId,
    responses: {
      204: { description: 'Deleted; its id is not found from now on.' },
      404: fails('No such asset of yours', ['ASSET_NOT_FOUND']),
      409: fails('A run still queued or running uses it', ['ASSET_IN_USE']),
    },
  },
  {
    operationId: 'getAssetContent',
    method: 'get',
    path: '/api/v1/assets/{id}/content',
    tag: 'assets',
    summary: "Download an asset's bytes",
    description: 'Answers a `Range: bytes=…` header with 206.',
    authenticated: true,
    pathParams: assetId,
    responses: {
      200: { description: 'The bytes.', content: { '*/*': binary }, headers: ['Content-Length', 'Accept-Ranges', 'Content-Disposition'] },
      206: { description: 'The requested range.', content: { '*/*': binary }, headers: ['Content-Length', 'Content-Range', 'Accept-Ranges', 'Content-Disposition'] },
      404: fails('No such asset of yours', ['ASSET_NOT_FOUND']),
      416: fails('The range lies outside the file', ['RANGE_NOT_SATISFIABLE'], ['Content-Range']),
    },
  },
  {
    operationId: 'listApps',
    method: 'get',
    path: '/api/v1/apps',
    tag: 'apps',
    summary: 'List the app versions you may run, newest first',
    authenticated: true,
    query: PageQuery,
    responses: {
      200: { description: 'A page of live app versions.', content: json(AppList) },
      400: fails('A bad `limit` or `cursor`', ['INVALID_REQUEST']),
    },
  },
  {
    operationId: 'describeApp',
    method: 'get',
    path: '/api/v1/apps/{appVersionId}',
    tag: 'apps',
    summary: 'Describe an app version and its typed inputs',
    authenticated: true,
    pathParams: { appVersionId: 'The app version id.' },
    responses: {
      200: { description: 'The app version.', content: json(AppVersion) },
      404: fails('The app version never existed', ['APP_VERSION_NOT_FOUND']),
      410: fails('The app version was deleted', ['APP_DELETED']),
    },
  },
  runCreation('/api/v1/apps/{appVersionId}', 'runApp', AppRunBody, 'Run an app version', { appVersionId: 'The app version id.' }),
  runCreation('/api/v1/runs', 'createRun', RunBody, 'Run an app version named in the body'),
  {
    operationId: 'listRuns',
    method: 'get',
    path: '/api/v1/runs',
    tag: 'runs',
    summary: 'List your runs, newest first',
    authenticated: true,
    query: PageQuery,
    responses: { 200: { description: 'A page of runs.', content: json(RunList) }, 400: fails('A bad `limit` or `cursor`', ['INVALID_REQUEST']) },
  },
  {
    operationId: 'getRun',
    method: 'get',
    path: '/api/v1/runs/{id}',
    tag: 'runs',
    summary: 'Read a run',
    description: 'A failed workflow is a `failed` run with `error.code`, never an HTTP error of this call.',
    authenticated: true,
    pathParams: runId,
    responses: { 200: { description: 'The run record.', content: json(Run) }, 404: fails('No such run of yours', ['RUN_NOT_FOUND']) },
  },
  {
    operationId: 'streamRunEvents',
    method: 'get',
    path: '/api/v1/runs/{id}/events',
    tag: 'runs',
    summary: "Follow a run's changes as Server-Sent Events",
    description:
      'At once an `event: run` with the current record, then one at each change of status, progress, queue position or outputs, each with an increasing `id:`; a comment every 15 s; the stream ends after a terminal record. At most 20 streams per account. While the run executes, an `event: preview` (at most every 500 ms) tells of a new preview image: its `data:` is `{ run_id, node_id, seq, content_type, url }` (the `RunPreviewEvent` schema).',
    authenticated: true,
    pathParams: runId,
    responses: {
      200: { description: 'The event stream; each `data:` is a run record.', content: { 'text/event-stream': Type.String() } },
      404: fails('No such run of yours', ['RUN_NOT_FOUND']),
    },
  },
  // Live previews.
  {
    operationId: 'getRunPreview',
    method: 'get',
    path: '/api/v1/runs/{id}/preview',
    tag: 'runs',
    summary: "The latest preview image of a run",
    description:
      'The newest preview the backend sent while the run executes (JPEG or PNG, at most 1 MiB), kept until 10 minutes after the run ends. A `seq` query parameter is ignored: it only defeats caches, the latest preview is always answered.',
    authenticated: true,
    pathParams: runId,
    responses: {
      200: { description: 'The image.', content: { 'image/jpeg': binary, 'image/png': binary }, headers: ['Content-Length', 'Cache-Control', 'X-Preview-Seq'] },
      404: fails('No such run of yours, or no preview of it (yet, or any more)', ['RUN_NOT_FOUND', 'PREVIEW_NOT_FOUND']),
    },
  },
  {
    operationId: 'cancelRun',
    method: 'post',
    path: '/api/v1/runs/{id}/cancel',
    tag: 'runs',
    summary: 'Cancel a run',
    description: 'A queued run becomes `canceled`, a running one `canceling` then `canceled`; a finished run is returned unchanged.',
    authenticated: true,
    pathParams: runId,
    responses: { 200: { description: 'The run.', content: json(Run) }, 404: fails('No such run of yours', ['RUN_NOT_FOUND']) },
  },
  {
    operationId: 'getAccount',
    method: 'get',
    path: '/api/v1/account',
    tag: 'account',
    summary: 'Your tier, limits and GPU-seconds',
    authenticated: true,
    responses: { 200: { description: 'The account.', content: json(Account) } },
  },
  {
    operationId: 'health',
    method: 'get',
    path: '/healthz',
    tag: 'service',
    summary: 'The state of the database, the limiter and the backends',
    authenticated: false,
    responses: {
      200: { description: '`ok`, or `degraded` while some backends are down.', content: json(Health) },
      503: { description: 'The server cannot serve.', content: json(Health) },
    },
  },
  {
    operationId: 'metrics',
    method: 'get',
    path: '/metrics',
    tag: 'service',
    summary: 'Prometheus metrics',
    authenticated: false,
    responses: { 200: { description: 'The Prometheus text format.', content: { 'text/plain': Type.String() } } },
  },
  {
    operationId: 'openApiDocument',
    method: 'get',
    path: '/openapi.json',
    tag: 'service',
    summary: 'This document',
    authenticated: false,
    responses: { 200: { description: 'The OpenAPI 3.1 document.', content: json(Type.Object({ openapi: Type.String() })) } },
  },
  {
    operationId: 'docsPage',
    method: 'get',
    path: '/docs',
    tag: 'service',
    summary: 'The browsable API reference',
    authenticated: false,
    responses: { 200: { description: 'An HTML page rendering this document; every asset it loads is served by runload.', content: { 'text/html': Type.String() } } },
  },
  {
    operationId: 'docsAsset',
    method: 'get',
    path: '/docs/assets/{file}',
    tag: 'service',
    summary: 'A script or stylesheet of the docs page',
    authenticated: false,
    pathParams: { file: 'The asset name.' },
    responses: {
      200: { description: 'The asset.', content: { 'text/javascript': Type.String() } },
      404: fails('No such asset', ['NOT_FOUND']),
    },
  },
  // The operator's admin API.
  ...ADMIN_OPERATIONS,
];

/** Errors every `/api/v1` operation may answer besides its own. */
export const COMMON_API_RESPONSES: Readonly<Record<number, ResponseSpec>> = {
  400: fails('The request could not be read', ['INVALID_REQUEST']),
  401: { description: 'No Bearer key (`Missing API key`), or a malformed, unknown or revoked one (`Invalid API key`)', content: json(PlainError), headers: ['WWW-Authenticate'] },
  403: { description: 'The account is suspended (`Account suspended`)', content: json(PlainError) },
  429: fails('Too many requests this minute, or too many failed authentications from this address', ['RATE_LIMITED'], ['Retry-After']),
  500: fails('Something unexpected; never a stack trace', ['INTERNAL_ERROR']),
  503: fails('The database is unreachable', ['SERVICE_UNAVAILABLE'], ['Retry-After']),
};

/** Answers of the fallback: a path no route has (404) or a method the path does not answer (405). */
export const FALLBACK_RESPONSES: Readonly<Record<number, ResponseSpec>> = {
  404: fails('No such route', ['NOT_FOUND']),
  405: fails('The path does not answer this method', ['METHOD_NOT_ALLOWED'], ['Allow']),
};
