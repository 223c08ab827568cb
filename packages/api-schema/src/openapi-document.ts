/**
 * The OpenAPI 3.1 document, generated from the operation table and the schemas the server
 * validates with. Named schemas become components; everything else is inlined.
 * @module
 */
import type { TSchema } from '@sinclair/typebox';
import { Account } from './account.js';
import { AppList, AppSummary, AppVersion } from './app.js';
import { Asset, AssetList } from './asset.js';
import { PlainError, StructuredError, UploadFailure } from './errors.js';
import { API_HEADERS, HEADERS, RUN_HEADERS, type HeaderName } from './headers.js';
import { Health } from './health.js';
import { COMMON_API_RESPONSES, FALLBACK_RESPONSES, OPERATIONS, type Operation, type ResponseSpec } from './operations.js';
import { COMMON_ADMIN_RESPONSES } from './admin-operations.js';
import { AdminAccount, AdminAccountDetail, AdminAccountList, AdminAppList, AdminAppVersion, AdminKeyList, AdminRun, AdminRunList, AuditList, IssuedKey, TierList, UsageReport } from './admin.js';
import { Backend, BackendList, PoolReport } from './backend.js';
import { AppRunBody, RunBody } from './requests.js';
import { CreatedRun, Run, RunList } from './run.js';

type Json = Record<string, unknown>;

const NAMED: ReadonlyMap<TSchema, string> = new Map<TSchema, string>([
  [Asset, 'Asset'],
  [AssetList, 'AssetList'],
  [AppVersion, 'AppVersion'],
  [AppSummary, 'AppSummary'],
  [AppList, 'AppList'],
  [Run, 'Run'],
  [CreatedRun, 'CreatedRun'],
  [RunList, 'RunList'],
  [Account, 'Account'],
  [Health, 'Health'],
  [StructuredError, 'StructuredError'],
  [PlainError, 'PlainError'],
  [UploadFailure, 'UploadFailure'],
  [RunBody, 'RunBody'],
  [AppRunBody, 'AppRunBody'],
  // The admin API.
  [TierList, 'TierList'],
  [AdminAccount, 'AdminAccount'],
  [AdminAccountDetail, 'AdminAccountDetail'],
  [AdminAccountList, 'AdminAccountList'],
  [IssuedKey, 'IssuedKey'],
  [AdminKeyList, 'AdminKeyList'],
  [AdminAppVersion, 'AdminAppVersion'],
  [AdminAppList, 'AdminAppList'],
  [AdminRun, 'AdminRun'],
  [AdminRunList, 'AdminRunList'],
  [UsageReport, 'UsageReport'],
  [AuditList, 'AuditList'],
  // The pool as data.
  [Backend, 'Backend'],
  [BackendList, 'BackendList'],
  [PoolReport, 'PoolReport'],
]);

/** Plain JSON Schema: TypeBox's symbol keys dropped. */
export function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

function schemaOrRef(schema: TSchema): Json {
  const name = NAMED.get(schema);
  return name ? { $ref: `#/components/schemas/${name}` } : plain(schema);
}

function response(spec: ResponseSpec, extraHeaders: readonly HeaderName[], withBody: boolean): Json {
  const headers = Object.fromEntries([...extraHeaders, ...(spec.headers ?? [])].map((h) => [h, { $ref: `#/components/headers/${h}` }]));
  const out: Json = { description: spec.description, headers };
  if (spec.content && withBody) {
    out['content'] = Object.fromEntries(Object.entries(spec.content).map(([type, schema]) => [type, { schema: schemaOrRef(schema) }]));
  }
  return out;
}

function parameters(op: Operation): Json[] {
  const params: Json[] = Object.entries(op.pathParams ?? {}).map(([name, description]) => ({
    name,
    in: 'path',
    required: true,
    description,
    schema: { type: 'string' },
  }));
  const query = op.query ? plain(op.query) : null;
  const required = new Set((query?.['required'] as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries((query?.['properties'] as Record<string, Json> | undefined) ?? {})) {
    params.push({ name, in: 'query', required: required.has(name), schema });
  }
  if (op.idempotent) {
    params.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Makes a retry safe: the same key with the same request within 24 hours returns the stored response, marked `Idempotent-Replayed: true`, and creates nothing.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
    });
  }
  return params;
}

/** The media type of a JSON body, with the schema's first example as the one a reader sends. */
function jsonMediaType(schema: TSchema): Json {
  const example = (schema['examples'] as unknown[] | undefined)?.[0];
  return { schema: schemaOrRef(schema), ...(example === undefined ? {} : { example }) };
}

function operation(op: Operation): Json {
  const base = op.authenticated ? [...API_HEADERS, ...(op.runLimits ? RUN_HEADERS : [])] : (['X-Request-Id'] as HeaderName[]);
  const common = op.adminScope ? COMMON_ADMIN_RESPONSES : op.authenticated ? COMMON_API_RESPONSES : {};
  const specs = { ...common, ...op.responses };
  const scopeNote = op.adminScope ? `Needs an admin token with the scope \`${op.adminScope}\`${op.method === 'get' ? ' (or `read`)' : ''}, or \`*\`.` : null;
  const description = [op.description, scopeNote].filter(Boolean).join(' ');
  const out: Json = {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(description ? { description } : {}),
    security: op.adminScope ? [{ adminToken: [] }] : op.authenticated ? [{ bearerAuth: [] }] : [],
    parameters: parameters(op),
    responses: Object.fromEntries(Object.entries(specs).map(([status, spec]) => [status, response(spec, base, true)])),
  };
  if (op.jsonBody) out['requestBody'] = { required: true, content: { 'application/json': jsonMediaType(op.jsonBody) } };
  if (op.multipartBody) out['requestBody'] = { required: true, content: { 'multipart/form-data': { schema: plain(op.multipartBody) } } };
  return out;
}

export interface OpenApiOptions {
  /** The server's public base URL, when known: the generated examples of a reader are sent there. */
  readonly serverUrl?: string;
  readonly version?: string;
}

export function buildOpenApiDocument(options: OpenApiOptions = {}): Json {
  const paths: Record<string, Json> = {};
  // HEAD, answered wherever GET is, is stated once in the description rather than as a second
  // operation on every path: a reader would see each GET twice.
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operation(op);
  const fallbackHeaders: HeaderName[] = ['X-Request-Id'];
  return {
    openapi: '3.1.0',
    info: {
      title: 'runload API',
      version: options.version ?? '1',
      description:
        'Runs published ComfyUI workflow apps on a pool of GPU servers. Every `/api/v1` call needs `Authorization: Bearer rl_…`. ' +
        'Errors use three body forms: `{ "error": { "code", "message" } }` (plus `retry_after` when rate limited and `details` where stated), ' +
        '`{ "error": "<text>" }` for authentication, and `{ "success": false, "error": "Upload failed", "reason"? }` for uploads. ' +
        'An unknown route answers 404 `NOT_FOUND` and a wrong method 405 `METHOD_NOT_ALLOWED`; under `/api/v1` they are authenticated and limited first, ' +
        'so they may also answer 401, 403, 429, 500 or 503 (see `components.responses`). ' +
        '`HEAD` is answered wherever `GET` is, asset content and `/healthz` included: the same status and headers, without the body.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [
      { name: 'runs', description: 'Queue, follow and cancel runs.' },
      { name: 'assets', description: 'Upload inputs and download outputs.' },
      { name: 'apps', description: 'The published app versions.' },
      { name: 'account', description: 'Your limits and GPU quota.' },
      { name: 'service', description: 'Health, metrics and this documentation, without a key.' },
      { name: 'admin', description: "The operator's API: accounts, keys, apps, runs, usage and the audit trail, behind an admin token `rladm_…` with scopes." },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key `rl_<prefix>_<secret>`.' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'An admin token `rladm_<prefix>_<secret>` (made with `runload admin-tokens create`); API keys are refused.' },
      },
      schemas: Object.fromEntries([...NAMED].map(([schema, name]) => [name, plain(schema)])),
      headers: Object.fromEntries(Object.entries(HEADERS).map(([name, h]) => [name, { description: h.description, schema: h.schema }])),
      responses: {
        NotFound: response(FALLBACK_RESPONSES[404] as ResponseSpec, fallbackHeaders, true),
        MethodNotAllowed: response(FALLBACK_RESPONSES[405] as ResponseSpec, fallbackHeaders, true),
        // Under /api/v1 even an unknown route is authenticated and limited first.
        Unauthorized: response(COMMON_API_RESPONSES[401] as ResponseSpec, API_HEADERS, true),
        Forbidden: response(COMMON_API_RESPONSES[403] as ResponseSpec, API_HEADERS, true),
        TooManyRequests: response(COMMON_API_RESPONSES[429] as ResponseSpec, API_HEADERS, true),
        InternalError: response(COMMON_API_RESPONSES[500] as ResponseSpec, API_HEADERS, true),
        ServiceUnavailable: response(COMMON_API_RESPONSES[503] as ResponseSpec, API_HEADERS, true),
        CorsPreflight: {
          description:
            'The answer to a browser\'s `OPTIONS` preflight from an origin listed in `RUNLOAD_CORS_ORIGINS`, on any path. From other origins, or when none is configured, no CORS header is sent.',
          headers: {
            'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
            'Access-Control-Allow-Origin': { description: 'The calling origin.', schema: { type: 'string' } },
            'Access-Control-Allow-Methods': { description: '`GET, HEAD, POST, PATCH, DELETE, OPTIONS`.', schema: { type: 'string' } },
            'Access-Control-Allow-Headers': { description: 'Authorization, Content-Type, Idempotency-Key, X-Request-Id, Range, Last-Event-ID.', schema: { type: 'string' } },
            'Access-Control-Max-Age': { description: 'Seconds the browser may keep this answer.', schema: { type: 'integer' } },
          },
        },
      },
    },
  };
}
