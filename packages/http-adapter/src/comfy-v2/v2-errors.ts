/**
 * Errors on the Comfy API v2 routes: its envelope `{ "error": { "code", "message", "details"? } }`
 * with its lower-case codes, `details` always an object. Statuses are this API's own, except where
 * the v2 names another (a refused graph is 422, every 429 is `queue_full` with `Retry-After`).
 * @module
 */
import { CoreError, type CoreErrorCode } from '@runload/core';
import { HttpError, statusOf, type ErrorResponse } from '../error-response.js';

const CODES: Partial<Record<CoreErrorCode, string>> = {
  MISSING_API_KEY: 'unauthorized',
  INVALID_API_KEY: 'unauthorized',
  ACCOUNT_SUSPENDED: 'forbidden',
  WORKFLOWS_FORBIDDEN: 'forbidden',
  INVALID_REQUEST: 'invalid_request',
  INVALID_WEBHOOK: 'invalid_request',
  INVALID_WORKFLOW: 'invalid_workflow',
  WORKFLOW_FORMAT_UI: 'workflow_format_ui',
  INVALID_INPUT: 'missing_asset',
  MISSING_ASSET: 'missing_asset',
  HASH_MISMATCH: 'hash_mismatch',
  BLOB_NOT_FOUND: 'blob_not_found',
  APP_VERSION_NOT_FOUND: 'not_found',
  APP_DELETED: 'not_found',
  RUN_NOT_FOUND: 'not_found',
  ASSET_NOT_FOUND: 'not_found',
  ACCOUNT_NOT_FOUND: 'not_found',
  KEY_NOT_FOUND: 'not_found',
  ASSET_IN_USE: 'asset_in_use',
  RATE_LIMITED: 'queue_full',
  GPU_QUOTA_EXCEEDED: 'queue_full',
  IDEMPOTENCY_KEY_REUSED: 'idempotency_key_reuse',
  IDEMPOTENCY_KEY_IN_USE: 'idempotency_conflict',
  SERVICE_UNAVAILABLE: 'service_unavailable',
  STORAGE_UNAVAILABLE: 'service_unavailable',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  RANGE_NOT_SATISFIABLE: 'range_not_satisfiable',
  INVALID_TRANSITION: 'conflict',
};

/** Statuses the v2 sets apart from this API's. */
const V2_STATUS: Partial<Record<CoreErrorCode, number>> = { INVALID_WORKFLOW: 422, APP_DELETED: 404 };

/** Seconds to wait when the database is unreachable, or an idempotency key is busy. */
const RETRY_AFTER_SECONDS: Partial<Record<CoreErrorCode, number>> = { STORAGE_UNAVAILABLE: 5, IDEMPOTENCY_KEY_IN_USE: 1 };

export function v2Error(status: number, code: string, message: string, details?: unknown, headers: Record<string, string> = {}): ErrorResponse {
  const body = details === undefined ? { error: { code, message } } : { error: { code, message, details } };
  return { status, body, headers };
}

/** The v2's `details` is an object: a list of bad fields goes under `problems`. */
function detailsOf(details: unknown): Record<string, unknown> | undefined {
  if (details === undefined) return undefined;
  return Array.isArray(details) ? { problems: details } : (details as Record<string, unknown>);
}

export function v2ErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof HttpError) {
    return v2Error(error.status, error.code.toLowerCase(), error.message, undefined, error.headers);
  }
  if (!CoreError.is(error) || error.code === 'INTERNAL_ERROR') return v2Error(500, 'internal_error', 'An unexpected error occurred');
  const status = V2_STATUS[error.code] ?? statusOf(error.code);
  const headers: Record<string, string> = {};
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  const retryAfter = error.retryAfterSeconds ?? RETRY_AFTER_SECONDS[error.code];
  if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
  if (status === 429 && retryAfter === undefined) headers['Retry-After'] = '1';
  const message =
    error.code === 'STORAGE_UNAVAILABLE' ? 'The database is unreachable; try again shortly' : error.code === 'ACCOUNT_SUSPENDED' ? 'Account suspended' : error.message;
  return v2Error(status, CODES[error.code] ?? 'internal_error', message, detailsOf(error.details), headers);
}
