/**
 * The one place where errors become HTTP: CoreError codes map to statuses and to the three
 * body forms of SPEC 7.1. Nothing else in the adapter chooses an error status.
 * @module
 */
import { CoreError, type CoreErrorCode } from '@runload/core';

export type ErrorBody =
  | { error: { code: string; message: string; retry_after?: number; details?: unknown } }
  | { error: string }
  | { success: false; error: string; reason?: string };

export interface ErrorResponse {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;
}

const STATUS: Record<CoreErrorCode, number> = {
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  ACCOUNT_SUSPENDED: 403,
  INVALID_REQUEST: 400,
  INVALID_INPUT: 422,
  APP_VERSION_NOT_FOUND: 404,
  APP_DELETED: 410,
  RUN_NOT_FOUND: 404,
  PREVIEW_NOT_FOUND: 404,
  ASSET_NOT_FOUND: 404,
  ASSET_IN_USE: 409,
  ACCOUNT_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  RATE_LIMITED: 429,
  GPU_QUOTA_EXCEEDED: 429,
  SERVICE_UNAVAILABLE: 503,
  STORAGE_UNAVAILABLE: 503,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  INVALID_WORKFLOW: 422,
  INVALID_TRANSITION: 409,
  INVALID_WEBHOOK: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  // The pool (admin API).
  BACKEND_NOT_FOUND: 404,
  BACKEND_EXISTS: 409,
  BACKEND_BUSY: 409,
  INTERNAL_ERROR: 500,
  // The admin API.
  MISSING_ADMIN_TOKEN: 401,
  INVALID_ADMIN_TOKEN: 401,
  FORBIDDEN: 403,
  ADMIN_TOKEN_NOT_FOUND: 404,
  INVALID_VALUE: 422,
  // Raw graphs and content by hash: answered on the Comfy API v2 routes only.
  WORKFLOW_FORMAT_UI: 422,
  MISSING_ASSET: 422,
  HASH_MISMATCH: 409,
  BLOB_NOT_FOUND: 404,
  WORKFLOWS_FORBIDDEN: 403,
};

/** The HTTP status of a core error code. */
export function statusOf(code: CoreErrorCode): number {
  return STATUS[code] ?? 500;
}

/** Seconds a client should wait when the database is unreachable. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

/** An error of the HTTP layer itself (unknown route, wrong method). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function errorResponse(error: unknown): ErrorResponse {
  if (error instanceof HttpError) {
    return { status: error.status, body: { error: { code: error.code, message: error.message } }, headers: error.headers };
  }
  if (!CoreError.is(error)) {
    return { status: 500, body: { error: { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred' } }, headers: {} };
  }
  const status = statusOf(error.code);
  const headers: Record<string, string> = {};
  switch (error.code) {
    case 'MISSING_API_KEY':
    case 'INVALID_API_KEY':
    case 'MISSING_ADMIN_TOKEN':
    case 'INVALID_ADMIN_TOKEN':
      headers['WWW-Authenticate'] = 'Bearer';
      return { status, body: { error: error.message }, headers };
    case 'ACCOUNT_SUSPENDED':
      return { status, body: { error: 'Account suspended' }, headers };
    case 'STORAGE_UNAVAILABLE':
      headers['Retry-After'] = String(STORAGE_RETRY_AFTER_SECONDS);
      return { status, body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'The database is unreachable; try again shortly' } }, headers };
    case 'INTERNAL_ERROR':
      return { status, body: { error: { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred' } }, headers };
    default:
      break;
  }
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  // CONTRACT 9: a webhook that cannot be used is an INVALID_REQUEST, answered 422.
  // So is a value an operator route cannot use (an unknown tier).
  const code = error.code === 'INVALID_WEBHOOK' || error.code === 'INVALID_VALUE' ? 'INVALID_REQUEST' : error.code;
  const body: { code: string; message: string; retry_after?: number; details?: unknown } = { code, message: error.message };
  // SPEC 7.1 keeps retry_after in the body for rate limiting alone.
  if (error.code === 'RATE_LIMITED') body.retry_after = error.retryAfterSeconds ?? 1;
  if (error.details !== undefined) body.details = error.details;
  return { status, body: { error: body }, headers };
}

/** The upload failure form (SPEC 7.1) for an error raised while storing an upload. */
export function uploadErrorResponse(error: unknown): ErrorResponse | null {
  if (CoreError.hasCode(error, 'PAYLOAD_TOO_LARGE')) return upload(413, 'File too large');
  if (CoreError.hasCode(error, 'UNSUPPORTED_MEDIA_TYPE')) return upload(415, 'Unsupported file type');
  return null;
}

export function upload(status: number, reason?: string): ErrorResponse {
  return { status, body: reason ? { success: false, error: 'Upload failed', reason } : { success: false, error: 'Upload failed' }, headers: {} };
}
