/**
 * The admin API's operations, for the OpenAPI document (tag `admin`, security `adminToken`).
 * Each names the scope it needs; every GET is also open to the `read` scope, everything to `*`.
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { TierList } from './admin.js';
import { AddBackendBody, Backend, BackendList, ChangeBackendBody, PoolReport, RegisterBackendBody } from './backend.js';
import { PlainError, structuredError } from './errors.js';
import type { Operation, ResponseSpec } from './operations.js';

const json = (schema: TSchema) => ({ 'application/json': schema });

/** Errors every admin operation may answer besides its own. */
export const COMMON_ADMIN_RESPONSES: Readonly<Record<number, ResponseSpec>> = {
  400: { description: 'The request could not be read (INVALID_REQUEST)', content: json(structuredError(['INVALID_REQUEST'])) },
  401: {
    description: 'No Bearer token (`Missing admin token`), or a malformed, unknown or revoked one, an API key included (`Invalid admin token`)',
    content: json(PlainError),
    headers: ['WWW-Authenticate'],
  },
  403: { description: 'The admin token lacks the scope this operation needs; the message names it (FORBIDDEN)', content: json(structuredError(['FORBIDDEN'])) },
  429: {
    description: "The token's 600 requests a minute, or too many failed authentications from this address (RATE_LIMITED)",
    content: json(structuredError(['RATE_LIMITED'])),
    headers: ['Retry-After'],
  },
  500: { description: 'Something unexpected; never a stack trace (INTERNAL_ERROR)', content: json(structuredError(['INTERNAL_ERROR'])) },
  503: { description: 'The database is unreachable (SERVICE_UNAVAILABLE)', content: json(structuredError(['SERVICE_UNAVAILABLE'])), headers: ['Retry-After'] },
};

export const ADMIN_OPERATIONS: readonly Operation[] = [
  {
    operationId: 'adminListTiers',
    method: 'get',
    path: '/api/v1/admin/tiers',
    tag: 'admin',
    adminScope: 'accounts',
    summary: 'The tiers accounts may be on, with their limits',
    authenticated: true,
    responses: { 200: { description: 'Every tier: the four defaults and those of the limits file.', content: json(TierList) } },
  },
  // The pool as data.
  ...POOL_OPERATIONS(),
];

function POOL_OPERATIONS(): Operation[] {
  const base = { tag: 'admin' as const, authenticated: true };
  const byId = { id: 'The backend id.' };
  const invalid = { description: 'A URL that does not parse, has credentials or a query; a bad label or depth (INVALID_REQUEST)', content: json(structuredError(['INVALID_REQUEST'])) };
  const notFound = { description: 'No such backend (BACKEND_NOT_FOUND)', content: json(structuredError(['BACKEND_NOT_FOUND'])) };
  return [
    { ...base, operationId: 'adminListBackends', method: 'get', path: '/api/v1/admin/backends', adminScope: 'backends', summary: 'Every backend of the pool', responses: { 200: { description: 'The pool.', content: json(BackendList) } } },
    {
      ...base,
      operationId: 'adminAddBackend',
      method: 'post',
      path: '/api/v1/admin/backends',
      adminScope: 'backends',
      summary: 'Adds a backend (source api)',
      jsonBody: AddBackendBody,
      responses: { 201: { description: 'The backend.', content: json(Backend) }, 409: { description: 'The URL is a backend already (BACKEND_EXISTS)', content: json(structuredError(['BACKEND_EXISTS'])) }, 422: invalid },
    },
    {
      ...base,
      operationId: 'adminRegisterBackend',
      method: 'post',
      path: '/api/v1/admin/backends/register',
      adminScope: 'backends:register',
      summary: 'A GPU machine registers itself, or renews its lease (the heartbeat)',
      jsonBody: RegisterBackendBody,
      responses: {
        200: { description: 'Renewed: the lease ends at expires_at.', content: json(Backend) },
        201: { description: 'Registered.', content: json(Backend) },
        409: { description: 'The URL is a backend of another source (BACKEND_EXISTS)', content: json(structuredError(['BACKEND_EXISTS'])) },
        422: invalid,
      },
    },
    {
      ...base,
      operationId: 'adminDeregisterBackend',
      method: 'delete',
      path: '/api/v1/admin/backends/register',
      adminScope: 'backends:register',
      summary: 'A GPU machine leaves: drained, then removed once it holds nothing',
      query: Type.Object({ url: Type.String() }),
      responses: { 200: { description: 'The backend, draining.', content: json(Backend) }, 404: notFound, 422: invalid },
    },
    { ...base, operationId: 'adminGetBackend', method: 'get', path: '/api/v1/admin/backends/{id}', adminScope: 'backends', summary: 'One backend', pathParams: byId, responses: { 200: { description: 'The backend.', content: json(Backend) }, 404: notFound } },
    {
      ...base,
      operationId: 'adminChangeBackend',
      method: 'patch',
      path: '/api/v1/admin/backends/{id}',
      adminScope: 'backends',
      summary: 'Drains or activates a backend, changes its labels or depth',
      pathParams: byId,
      jsonBody: ChangeBackendBody,
      responses: { 200: { description: 'The backend.', content: json(Backend) }, 404: notFound, 422: invalid },
    },
    {
      ...base,
      operationId: 'adminRemoveBackend',
      method: 'delete',
      path: '/api/v1/admin/backends/{id}',
      adminScope: 'backends',
      summary: 'Removes a backend that holds nothing; with force=true at once, its runs treated as lost (they fail over)',
      pathParams: byId,
      query: Type.Object({ force: Type.Optional(Type.Literal('true')) }),
      responses: { 204: { description: 'Removed.' }, 404: notFound, 409: { description: 'It holds runs: drain it first, or force (BACKEND_BUSY)', content: json(structuredError(['BACKEND_BUSY'])) } },
    },
    {
      ...base,
      operationId: 'adminPool',
      method: 'get',
      path: '/api/v1/admin/pool',
      adminScope: 'backends',
      summary: 'The pool at a glance: backends, runs queued and running, and why waiting runs wait',
      responses: { 200: { description: 'The pool.', content: json(PoolReport) } },
    },
  ];
}
