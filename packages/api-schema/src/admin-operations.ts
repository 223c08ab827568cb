/**
 * The admin API's operations, for the OpenAPI document (tag `admin`, security `adminToken`).
 * Each names the scope it needs; every GET is also open to the `read` scope, everything to `*`.
 * @module
 */
import type { TSchema } from '@sinclair/typebox';
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { TierList } from './admin.js';
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
];
