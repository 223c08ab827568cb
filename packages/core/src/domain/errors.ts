/**
 * The one error type of the core. Use cases throw it; adapters translate its `code`
 * at their edge (HTTP status, retryability). Core never knows HTTP statuses.
 * @module
 */

/** Stable string codes. Each is part of the public contract. */
export type CoreErrorCode =
  /** No API key was presented. */
  | 'MISSING_API_KEY'
  /** The key is malformed, unknown or revoked. */
  | 'INVALID_API_KEY'
  /** The account behind a valid key is suspended. */
  | 'ACCOUNT_SUSPENDED'
  /** The request body is not what the endpoint takes (not JSON, not an object, a required field missing). */
  | 'INVALID_REQUEST'
  /** One or more inputs do not fit the app version; `details` lists every bad key. */
  | 'INVALID_INPUT'
  /** The app version id never existed. */
  | 'APP_VERSION_NOT_FOUND'
  /** The app version existed and was deleted. */
  | 'APP_DELETED'
  /** No run with that id belongs to the caller. */
  | 'RUN_NOT_FOUND'
  /** No asset with that id belongs to the caller. */
  | 'ASSET_NOT_FOUND'
  /** The caller's run has no preview (none sent yet, or it ended more than ten minutes ago). */
  | 'PREVIEW_NOT_FOUND'
  /** The asset is an input of a run still queued or running, so it cannot be deleted yet. */
  | 'ASSET_IN_USE'
  /** No account with that id (operator commands). */
  | 'ACCOUNT_NOT_FOUND'
  /** No API key with that id (operator commands). */
  | 'KEY_NOT_FOUND'
  /** A rate-limit window is exhausted; `retryAfterSeconds` says when to come back. */
  | 'RATE_LIMITED'
  /** The account's GPU-seconds quota for the period is spent. */
  | 'GPU_QUOTA_EXCEEDED'
  /** No execution backend is reachable. */
  | 'SERVICE_UNAVAILABLE'
  /** A body or file is over its size cap. */
  | 'PAYLOAD_TOO_LARGE'
  /** An uploaded file is not image, video or audio by its bytes, or is empty. */
  | 'UNSUPPORTED_MEDIA_TYPE'
  /** A byte range that starts past the end of the file. */
  | 'RANGE_NOT_SATISFIABLE'
  /** A workflow file cannot be published (UI format, not an object, no nodes). */
  | 'INVALID_WORKFLOW'
  /** A state change that the run's current status does not allow. */
  | 'INVALID_TRANSITION'
  /** A storage backend (database, blob store) failed or is unreachable. */
  | 'STORAGE_UNAVAILABLE'
  /** A run's `webhook` or `webhook_events` cannot be used (answered as 422 INVALID_REQUEST). */
  | 'INVALID_WEBHOOK'
  /** An idempotency key already used with a different request. */
  | 'IDEMPOTENCY_KEY_REUSED'
  /** An idempotency key whose first request is still being processed. */
  | 'IDEMPOTENCY_KEY_IN_USE'
  /** No backend of the pool with that id or URL (operator commands). */
  | 'BACKEND_NOT_FOUND'
  /** The URL is a backend of the pool already. */
  | 'BACKEND_EXISTS'
  /** The backend still holds runs: drain it first, or remove it with force. */
  | 'BACKEND_BUSY'
  /** Anything else: a bug. */
  | 'INTERNAL_ERROR'
  // The admin API.
  /** No admin token was presented on an admin route. */
  | 'MISSING_ADMIN_TOKEN'
  /** The admin token is malformed, unknown or revoked (an API key included). */
  | 'INVALID_ADMIN_TOKEN'
  /** A valid admin token without the scope the route needs; the message names the scope. */
  | 'FORBIDDEN'
  /** No admin token with that id (operator commands). */
  | 'ADMIN_TOKEN_NOT_FOUND'
  /** A well-formed request names a value that cannot be used (an unknown tier); answered as 422 INVALID_REQUEST. */
  | 'INVALID_VALUE'
  // Raw graphs and content by hash (the Comfy API v2).
  /** A submitted graph is in ComfyUI's UI format (nodes and links), not its API format. */
  | 'WORKFLOW_FORMAT_UI'
  /** An asset reference in a submitted graph names no usable asset of the caller. */
  | 'MISSING_ASSET'
  /** Uploaded bytes do not have the hash the client declared. */
  | 'HASH_MISMATCH'
  /** No bytes of the caller have that hash. */
  | 'BLOB_NOT_FOUND'
  /** The caller's tier may not submit raw graphs (the limits file's `workflows: false`). */
  | 'WORKFLOWS_FORBIDDEN';

/** One bad field of a request, as reported in `details`. */
export interface ErrorDetail {
  readonly key: string;
  readonly reason: string;
}

export interface CoreErrorOptions {
  readonly cause?: unknown;
  /** Limit windows whose state the response should show (rate limiting, failed authentication). */
  readonly windows?: readonly WindowState[];
  readonly details?: readonly ErrorDetail[] | Record<string, unknown>;
  readonly retryAfterSeconds?: number;
}

import type { WindowState } from './limit-window.js';

const BRAND = Symbol.for('runload.CoreError');

export class CoreError extends Error {
  readonly code: CoreErrorCode;
  readonly details: readonly ErrorDetail[] | Record<string, unknown> | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly windows: readonly WindowState[] | undefined;
  readonly [BRAND] = true;

  constructor(code: CoreErrorCode, message: string, options: CoreErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CoreError';
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.windows = options.windows;
  }

  /** Brand check that survives two loaded copies of the package (source and dist). */
  static is(error: unknown): error is CoreError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
  }

  static hasCode(error: unknown, code: CoreErrorCode): error is CoreError {
    return CoreError.is(error) && error.code === code;
  }
}
