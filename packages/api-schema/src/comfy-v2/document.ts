/**
 * The Comfy API v2 routes as their own OpenAPI 3.1 document (`/openapi-v2.json`), generated from
 * the schemas the server validates with, beside the document of `/api/v1`.
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { API_HEADERS, HEADERS, RUN_HEADERS, type HeaderName } from '../headers.js';
import { plain } from '../openapi-document.js';
import { PageQuery } from '../requests.js';
import { FromHashBody, JobBody, V2Asset, V2ErrorEnvelope, V2Health, V2Job, V2JobList, V2LogEvent, V2Output, V2PreviewEvent, V2Progress, V2StatusEvent, V2UploadBody } from './schemas.js';

type Json = Record<string, unknown>;

const NAMED: ReadonlyMap<TSchema, string> = new Map<TSchema, string>([
  [V2Asset, 'Asset'],
  [V2Job, 'Job'],
  [V2JobList, 'JobList'],
  [V2Output, 'Output'],
  [V2Progress, 'Progress'],
  [V2StatusEvent, 'StatusEvent'],
  [V2LogEvent, 'LogEvent'],
  [V2PreviewEvent, 'PreviewEvent'],
  [V2ErrorEnvelope, 'ErrorEnvelope'],
  [V2Health, 'Health'],
  [JobBody, 'JobBody'],
]);

const ref = (schema: TSchema): Json => (NAMED.has(schema) ? { $ref: `#/components/schemas/${NAMED.get(schema)}` } : plain(schema));

interface V2Response {
  readonly description: string;
  readonly body?: TSchema | 'binary' | 'event-stream';
  readonly headers?: readonly HeaderName[];
}

const error = (description: string, headers: readonly HeaderName[] = []): V2Response => ({ description, body: V2ErrorEnvelope, headers });

/** What every authenticated v2 route may answer besides its own. */
const COMMON: Readonly<Record<number, V2Response>> = {
  401: error('`unauthorized`: no API key, or one that is malformed, unknown or revoked', ['WWW-Authenticate']),
  403: error('`forbidden`: the account is suspended'),
  429: error('`queue_full`: a rate limit (the message says which)', ['Retry-After']),
  500: error('`internal_error`'),
  503: error('`service_unavailable`: the database is unreachable', ['Retry-After']),
};

interface V2Operation {
  readonly operationId: string;
  readonly method: 'get' | 'head' | 'post' | 'delete';
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly authenticated?: false;
  readonly runLimits?: true;
  readonly idempotent?: true;
  readonly query?: TSchema;
  readonly jsonBody?: TSchema;
  readonly multipartBody?: TSchema;
  readonly responses: Readonly<Record<number, V2Response>>;
}

const id = '{id}';
export const V2_OPERATIONS: readonly V2Operation[] = [
  {
    operationId: 'v2PostAssets',
    method: 'post',
    path: '/api/v2/assets',
    summary: 'Upload an asset',
    description: 'Multipart with a `file` part. The BLAKE3 and SHA-256 are computed while the bytes stream in; the type is read from the bytes.',
    idempotent: true,
    multipartBody: V2UploadBody,
    responses: {
      200: { description: 'Stored; the bytes were already there (`created_new: false`).', body: V2Asset, headers: ['Idempotent-Replayed'] },
      201: { description: 'Stored; new bytes (`created_new: true`).', body: V2Asset, headers: ['Idempotent-Replayed'] },
      400: error('`invalid_request`: no `file` part, more than one, or a malformed body'),
      409: error('`hash_mismatch`: the bytes do not have `expected_hash`; `idempotency_conflict`', ['Retry-After']),
      413: error('`payload_too_large`: over the upload size cap'),
      415: error('`unsupported_media_type`: not image, video or audio by its bytes, or empty'),
      422: error('`idempotency_key_reuse`'),
    },
  },
  {
    operationId: 'v2AssetFromHash',
    method: 'post',
    path: '/api/v2/assets/from-hash',
    summary: 'A new asset over bytes you uploaded before, named by their BLAKE3',
    jsonBody: FromHashBody,
    responses: {
      201: { description: 'The new asset.', body: V2Asset },
      400: error('`invalid_request`: the body is not `{ hash, file_path? }`'),
      404: error('`blob_not_found`: none of your content has that hash'),
    },
  },
  {
    operationId: 'v2HeadAssetByHash',
    method: 'head',
    path: '/api/v2/assets/by-hash/{hash}',
    summary: 'Whether you have bytes with this BLAKE3 (`blake3:<hex>`)',
    responses: { 200: { description: 'You have them: `from-hash` will mint an asset over them.' }, 404: { description: 'You do not.' } },
  },
  {
    operationId: 'v2GetAsset',
    method: 'get',
    path: `/api/v2/assets/${id}`,
    summary: 'Read an asset',
    responses: { 200: { description: 'The asset.', body: V2Asset }, 404: error('`not_found`') },
  },
  {
    operationId: 'v2DeleteAsset',
    method: 'delete',
    path: `/api/v2/assets/${id}`,
    summary: 'Delete an asset',
    responses: { 204: { description: 'Deleted.' }, 404: error('`not_found`'), 409: error('`asset_in_use`: an input of a job still queued or running') },
  },
  {
    operationId: 'v2GetAssetContent',
    method: 'get',
    path: `/api/v2/assets/${id}/content`,
    summary: 'The bytes of an asset (`Range` for part of them)',
    responses: {
      200: { description: 'The bytes.', body: 'binary', headers: ['Content-Length', 'Accept-Ranges', 'Content-Disposition'] },
      206: { description: 'The requested range.', body: 'binary', headers: ['Content-Length', 'Content-Range', 'Accept-Ranges', 'Content-Disposition'] },
      404: error('`not_found`'),
      416: error('`range_not_satisfiable`', ['Content-Range']),
    },
  },
  {
    operationId: 'v2PostJobs',
    method: 'post',
    path: '/api/v2/jobs',
    summary: 'Submit a workflow',
    description:
      'Runs the API-format graph on the pool, as a run of the hidden app version of that graph. Checked before anything is queued: the tier may submit graphs, the format, node classes and values against the backends, the assets referenced. `Idempotency-Key`: the same key and graph replays the stored answer.',
    runLimits: true,
    idempotent: true,
    jsonBody: JobBody,
    responses: {
      201: { description: 'The job is queued.', body: V2Job, headers: ['Idempotent-Replayed'] },
      400: error('`invalid_request`: not a JSON object with a `workflow` object, or an unknown field'),
      403: error('`forbidden`: your tier may not submit workflows, or the account is suspended'),
      409: error('`idempotency_conflict`: a request with this key is still being processed', ['Retry-After']),
      413: error('`payload_too_large`: the body is over 1 MiB'),
      422: error('`invalid_workflow` (`details.node_errors` by node), `workflow_format_ui`, `missing_asset`, `idempotency_key_reuse`'),
      429: error('`queue_full`: the run minute or hour window, the GPU quota or the general limit; the message says which', ['Retry-After']),
      503: error('`service_unavailable`: no backend is reachable, or none can run the graph', ['Retry-After']),
    },
  },
  {
    operationId: 'v2ListJobs',
    method: 'get',
    path: '/api/v2/jobs',
    summary: 'Your jobs (every run of yours), newest first',
    query: PageQuery,
    responses: { 200: { description: 'A page of jobs.', body: V2JobList }, 400: error('`invalid_request`: a bad `limit` or `cursor`') },
  },
  {
    operationId: 'v2GetJob',
    method: 'get',
    path: `/api/v2/jobs/${id}`,
    summary: 'A job',
    responses: { 200: { description: 'The job.', body: V2Job }, 404: error('`not_found`: no job of yours has this id') },
  },
  {
    operationId: 'v2GetJobEvents',
    method: 'get',
    path: `/api/v2/jobs/${id}/events`,
    summary: 'Live events of a job (SSE)',
    description:
      'Server-Sent Events: `status` (`StatusEvent`) on connect and at each change, `progress` (`Progress`), `output` (`Output`) as each output is stored, `preview` (`PreviewEvent`: the latest preview image, at most every 500 ms) and `log` (`LogEvent`). The terminal `status` comes last and ends the stream; a comment line every 15 s keeps it open.',
    responses: { 200: { description: 'The stream.', body: 'event-stream' }, 404: error('`not_found`') },
  },
  {
    operationId: 'v2CancelJob',
    method: 'post',
    path: `/api/v2/jobs/${id}/cancel`,
    summary: 'Cancel a job',
    responses: { 200: { description: 'The job, now `canceling` or `canceled`, or unchanged when it had finished.', body: V2Job }, 404: error('`not_found`') },
  },
  {
    operationId: 'v2Document',
    method: 'get',
    path: '/openapi-v2.json',
    summary: 'This document (no key)',
    authenticated: false,
    responses: { 200: { description: 'The OpenAPI 3.1 document of the v2 routes.', body: Type.Record(Type.String(), Type.Unknown()) } },
  },
  {
    operationId: 'v2Health',
    method: 'get',
    path: '/api/v2/health',
    summary: 'Whether the service can serve (no key)',
    authenticated: false,
    responses: { 200: { description: 'Serving.', body: V2Health }, 503: { description: 'Not serving.', body: V2Health } },
  },
];

function content(body: V2Response['body']): Json | undefined {
  if (body === undefined) return undefined;
  if (body === 'binary') return { '*/*': { schema: { type: 'string', format: 'binary' } } };
  if (body === 'event-stream') return { 'text/event-stream': { schema: { type: 'string' } } };
  return { 'application/json': { schema: ref(body) } };
}

function response(spec: V2Response, base: readonly HeaderName[], withBody: boolean): Json {
  const headers = Object.fromEntries([...base, ...(spec.headers ?? [])].map((h) => [h, { $ref: `#/components/headers/${h}` }]));
  const body = withBody ? content(spec.body) : undefined;
  return { description: spec.description, headers, ...(body ? { content: body } : {}) };
}

function parameters(op: V2Operation): Json[] {
  const params: Json[] = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const query = op.query ? plain(op.query) : null;
  for (const [name, schema] of Object.entries((query?.['properties'] as Record<string, Json> | undefined) ?? {})) params.push({ name, in: 'query', required: false, schema });
  if (op.idempotent) params.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } });
  return params;
}

function operation(op: V2Operation, method: V2Operation['method']): Json {
  const authenticated = op.authenticated !== false;
  const base = authenticated ? [...API_HEADERS, ...(op.runLimits ? RUN_HEADERS : [])] : (['X-Request-Id'] as HeaderName[]);
  const specs = { ...(authenticated ? COMMON : {}), ...op.responses };
  const withBody = method !== 'head';
  const out: Json = {
    operationId: method === op.method ? op.operationId : `${op.operationId}Head`,
    tags: ['comfy-v2'],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: authenticated ? [{ bearerAuth: [] }] : [],
    parameters: parameters(op),
    responses: Object.fromEntries(Object.entries(specs).map(([status, spec]) => [status, response(spec, base, withBody)])),
  };
  if (op.jsonBody) out['requestBody'] = { required: true, content: { 'application/json': { schema: ref(op.jsonBody) } } };
  if (op.multipartBody) out['requestBody'] = { required: true, content: { 'multipart/form-data': { schema: plain(op.multipartBody) } } };
  return out;
}

export function buildComfyV2Document(options: { serverUrl?: string } = {}): Json {
  const paths: Record<string, Json> = {};
  for (const op of V2_OPERATIONS) {
    const item = (paths[op.path] ??= {});
    item[op.method] = operation(op, op.method);
    if (op.method === 'get') item['head'] = operation(op, 'head');
  }
  const fallback = (description: string) => response(error(description), ['X-Request-Id'], true);
  return {
    openapi: '3.1.0',
    info: {
      title: 'runload: the Comfy API v2',
      version: '2',
      description:
        'The Comfy API v2 over a runload pool, for the official Comfy SDKs (`COMFY_BASE_URL` set to the runload server, an `rl_…` API key). Jobs are runs: a job id is a run id of `/api/v1`. Errors use the envelope `{ "error": { "code", "message", "details"? } }`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [{ name: 'comfy-v2', description: 'Jobs and assets as the Comfy API v2 has them.' }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key `rl_<prefix>_<secret>`.' } },
      schemas: Object.fromEntries([...NAMED].map(([schema, name]) => [name, plain(schema)])),
      headers: Object.fromEntries(Object.entries(HEADERS).map(([name, h]) => [name, { description: h.description, schema: h.schema }])),
      responses: {
        NotFound: fallback('`not_found`: no such route'),
        MethodNotAllowed: fallback('`method_not_allowed`'),
        Unauthorized: response(COMMON[401] as V2Response, API_HEADERS, true),
        Forbidden: response(COMMON[403] as V2Response, API_HEADERS, true),
        TooManyRequests: response(COMMON[429] as V2Response, API_HEADERS, true),
        InternalError: response(COMMON[500] as V2Response, API_HEADERS, true),
        ServiceUnavailable: response(COMMON[503] as V2Response, API_HEADERS, true),
      },
    },
  };
}
