/**
 * The admin API's operations, for the OpenAPI document (tag `admin`, security `adminToken`).
 * Each names the scope it needs; every GET is also open to the `read` scope, everything to `*`.
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import {
  AdminAccount,
  AdminAccountDetail,
  AdminAccountList,
  AdminAccountQuery,
  AdminAppList,
  AdminAppQuery,
  AdminAppVersion,
  AdminKeyList,
  AdminRun,
  AdminRunList,
  AdminRunQuery,
  AuditList,
  CreateAccountBody,
  CreateKeyBody,
  IssuedKey,
  PublishAppBody,
  TierList,
  UpdateAccountBody,
  UsageQuery,
  UsageReport,
  USAGE_CSV_HEADER,
} from './admin.js';
import { AddBackendBody, Backend, BackendList, ChangeBackendBody, EXAMPLE_REGISTERED_URL, PoolReport, RegisterBackendBody } from './backend.js';
import { PageQuery } from './requests.js';
import { PlainError, structuredError, type ErrorCode } from './errors.js';
import type { Operation, ResponseSpec } from './operation.js';

const json = (schema: TSchema) => ({ 'application/json': schema });
const fails = (description: string, codes: readonly ErrorCode[]): ResponseSpec => ({ description: `${description} (${codes.join(', ')})`, content: json(structuredError(codes)) });
const accountId = { id: 'The account id (a UUID; anything else is not found).' };
const badBody = fails('The body is not JSON, not an object, lacks a field or has one this route does not take', ['INVALID_REQUEST']);
const unknownTier = fails('An unknown tier (the message lists the defined ones) or status', ['INVALID_REQUEST']);
const noAccount = fails('No such account', ['ACCOUNT_NOT_FOUND']);
const badPage = fails('A bad `limit` or `cursor`', ['INVALID_REQUEST']);

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
  {
    operationId: 'adminCreateAccount',
    method: 'post',
    path: '/api/v1/admin/accounts',
    tag: 'admin',
    adminScope: 'accounts',
    summary: 'Create an account (someone subscribed)',
    authenticated: true,
    jsonBody: CreateAccountBody,
    responses: { 201: { description: 'The new account, active.', content: json(AdminAccount) }, 400: badBody, 422: unknownTier },
  },
  {
    operationId: 'adminListAccounts',
    method: 'get',
    path: '/api/v1/admin/accounts',
    tag: 'admin',
    adminScope: 'accounts',
    summary: 'List accounts, newest first',
    authenticated: true,
    query: AdminAccountQuery,
    responses: { 200: { description: 'A page of accounts.', content: json(AdminAccountList) }, 400: badPage, 422: unknownTier },
  },
  {
    operationId: 'adminGetAccount',
    method: 'get',
    path: '/api/v1/admin/accounts/{id}',
    tag: 'admin',
    adminScope: 'accounts',
    summary: 'Read an account with its GPU quota and runs in flight',
    authenticated: true,
    pathParams: accountId,
    responses: { 200: { description: 'The account.', content: json(AdminAccountDetail) }, 404: noAccount },
  },
  {
    operationId: 'adminUpdateAccount',
    method: 'patch',
    path: '/api/v1/admin/accounts/{id}',
    tag: 'admin',
    adminScope: 'accounts',
    summary: 'Rename, change the tier of, suspend or reactivate an account',
    description: 'Takes effect on every instance within a second.',
    authenticated: true,
    pathParams: accountId,
    jsonBody: UpdateAccountBody,
    responses: { 200: { description: 'The account as it now is.', content: json(AdminAccount) }, 400: badBody, 404: noAccount, 422: unknownTier },
  },
  {
    operationId: 'adminCreateKey',
    method: 'post',
    path: '/api/v1/admin/accounts/{id}/keys',
    tag: 'admin',
    adminScope: 'accounts',
    summary: 'Issue an API key for an account',
    authenticated: true,
    pathParams: accountId,
    jsonBody: CreateKeyBody,
    responses: { 201: { description: 'The key, with its secret shown this once.', content: json(IssuedKey) }, 400: badBody, 404: noAccount },
  },
  {
    operationId: 'adminListKeys',
    method: 'get',
    path: '/api/v1/admin/accounts/{id}/keys',
    tag: 'admin',
    adminScope: 'accounts',
    summary: "An account's keys, oldest first (never a secret)",
    authenticated: true,
    pathParams: accountId,
    responses: { 200: { description: 'The keys, revoked ones included.', content: json(AdminKeyList) }, 404: noAccount },
  },
  {
    operationId: 'adminRevokeKey',
    method: 'delete',
    path: '/api/v1/admin/keys/{id}',
    tag: 'admin',
    adminScope: 'accounts',
    summary: 'Revoke an API key',
    description: 'Refused on every instance within a second.',
    authenticated: true,
    pathParams: { id: 'The key id.' },
    responses: { 204: { description: 'Revoked.' }, 404: fails('No such key', ['KEY_NOT_FOUND']) },
  },
  {
    operationId: 'adminPublishApp',
    method: 'post',
    path: '/api/v1/admin/apps',
    tag: 'admin',
    adminScope: 'apps',
    summary: 'Publish a workflow as an app version',
    description: 'The same checks and typing as `runload apps publish`.',
    authenticated: true,
    jsonBody: PublishAppBody,
    responses: {
      201: { description: 'The app version, as `apps publish` prints it.', content: json(AdminAppVersion) },
      400: badBody,
      422: fails('A workflow that cannot be published (UI format, no nodes, a COMBO value not offered), or a bad `app_id` or `expose`', ['INVALID_WORKFLOW', 'INVALID_REQUEST']),
    },
  },
  {
    operationId: 'adminListApps',
    method: 'get',
    path: '/api/v1/admin/apps',
    tag: 'admin',
    adminScope: 'apps',
    summary: 'List app versions, newest first',
    authenticated: true,
    query: AdminAppQuery,
    responses: { 200: { description: 'A page of app versions (deleted ones too with `include_deleted=true`).', content: json(AdminAppList) }, 400: badPage },
  },
  {
    operationId: 'adminDeleteApp',
    method: 'delete',
    path: '/api/v1/admin/apps/{id}',
    tag: 'admin',
    adminScope: 'apps',
    summary: 'Delete an app version',
    description: 'As `apps delete`: its metadata and run endpoints answer 410 from now on; runs already created finish.',
    authenticated: true,
    pathParams: { id: 'The app version id.' },
    responses: { 204: { description: 'Deleted.' }, 404: fails('No such app version', ['APP_VERSION_NOT_FOUND']) },
  },
  {
    operationId: 'adminListRuns',
    method: 'get',
    path: '/api/v1/admin/runs',
    tag: 'admin',
    adminScope: 'accounts',
    summary: 'Runs of every account, newest first',
    authenticated: true,
    query: AdminRunQuery,
    responses: { 200: { description: 'A page of run records with their account.', content: json(AdminRunList) }, 400: badPage, 422: fails('An unknown status', ['INVALID_REQUEST']) },
  },
  {
    operationId: 'adminGetRun',
    method: 'get',
    path: '/api/v1/admin/runs/{id}',
    tag: 'admin',
    adminScope: 'accounts',
    summary: 'Read any run',
    authenticated: true,
    pathParams: { id: 'The run id.' },
    responses: { 200: { description: 'The run record with its account.', content: json(AdminRun) }, 404: fails('No such run', ['RUN_NOT_FOUND']) },
  },
  {
    operationId: 'adminCancelRun',
    method: 'post',
    path: '/api/v1/admin/runs/{id}/cancel',
    tag: 'admin',
    adminScope: 'accounts',
    summary: 'Cancel any run',
    authenticated: true,
    pathParams: { id: 'The run id.' },
    responses: { 200: { description: 'The run, now `canceling` or `canceled` (unchanged once finished).', content: json(AdminRun) }, 404: fails('No such run', ['RUN_NOT_FOUND']) },
  },
  {
    operationId: 'adminUsage',
    method: 'get',
    path: '/api/v1/admin/usage',
    tag: 'admin',
    adminScope: 'usage',
    summary: "A month's GPU-seconds and ended runs per account, for invoices",
    description: `Every account, oldest first. With \`Accept: text/csv\` the same page as CSV, header \`${USAGE_CSV_HEADER}\`; the next page's cursor is then in the \`X-Next-Cursor\` header.`,
    authenticated: true,
    query: UsageQuery,
    responses: {
      200: { description: 'The usage of a page of accounts.', content: { 'application/json': UsageReport, 'text/csv': Type.String() }, headers: ['X-Next-Cursor'] },
      400: fails('A missing or bad `month`, `limit` or `cursor`', ['INVALID_REQUEST']),
    },
  },
  {
    operationId: 'adminAudit',
    method: 'get',
    path: '/api/v1/admin/audit',
    tag: 'admin',
    adminScope: 'read',
    summary: 'The audit trail of changes, newest first',
    description: 'Every change made through the admin API or the CLI: who (`cli` or `token:<id>`), what, on which id, in which request. Never a secret.',
    authenticated: true,
    query: PageQuery,
    responses: { 200: { description: 'A page of entries.', content: json(AuditList) }, 400: badPage },
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
      query: Type.Object({ url: Type.String({ description: 'The URL the machine registered.', examples: [EXAMPLE_REGISTERED_URL] }) }),
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
