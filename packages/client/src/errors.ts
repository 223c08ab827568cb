/** Every failure the API answers, as one typed exception. */

/** The codes of the structured error form, plus the client's own for the plain and upload forms. */
export type RunloadErrorCode =
  | 'INVALID_REQUEST'
  | 'INVALID_INPUT'
  | 'APP_VERSION_NOT_FOUND'
  | 'APP_DELETED'
  | 'RUN_NOT_FOUND'
  | 'ASSET_NOT_FOUND'
  | 'ASSET_IN_USE'
  | 'PREVIEW_NOT_FOUND'
  | 'RATE_LIMITED'
  | 'GPU_QUOTA_EXCEEDED'
  | 'SERVICE_UNAVAILABLE'
  | 'PAYLOAD_TOO_LARGE'
  | 'RANGE_NOT_SATISFIABLE'
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'INTERNAL_ERROR'
  /** 431 and 408, answered by the HTTP server before any route. */
  | 'HEADERS_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  /** 401: no key, or a malformed, unknown or revoked one. */
  | 'UNAUTHORIZED'
  /** 403: the account is suspended. */
  | 'FORBIDDEN'
  /** The upload failure form (`reason` carries the detail). */
  | 'UPLOAD_FAILED'
  /** A response the client could not read. */
  | 'UNEXPECTED_RESPONSE'
  | (string & {});

export class RunloadError extends Error {
  override readonly name = 'RunloadError';

  constructor(
    readonly code: RunloadErrorCode,
    message: string,
    /** The HTTP status. */
    readonly status: number,
    /** Seconds to wait before retrying: the body's `retry_after`, else the `Retry-After` header; null when neither. */
    readonly retryAfter: number | null,
    /** `details` of the structured form (INVALID_INPUT: `[ { key, reason } ]`) or `reason` of the upload form. */
    readonly details: unknown,
    /** The `X-Request-Id` of the response, for support. */
    readonly requestId: string | null,
  ) {
    super(message);
  }

  /** True for a RunloadError, even one from another copy of this package. */
  static is(error: unknown): error is RunloadError {
    return error instanceof Error && error.name === 'RunloadError' && typeof (error as { code?: unknown }).code === 'string';
  }
}

function retryAfterHeader(response: Response): number | null {
  const value = Number(response.headers.get('retry-after') ?? Number.NaN);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

/** Reads any of the three error body forms into a RunloadError. */
export async function errorFromResponse(response: Response): Promise<RunloadError> {
  const requestId = response.headers.get('x-request-id');
  const headerRetry = retryAfterHeader(response);
  const text = await response.text().catch(() => '');
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's page): reported below with the status alone.
  }
  const b = body as { error?: unknown; success?: unknown; reason?: unknown } | null;
  if (b && typeof b.error === 'object' && b.error !== null) {
    const e = b.error as { code?: string; message?: string; retry_after?: number; details?: unknown };
    return new RunloadError(e.code ?? 'UNEXPECTED_RESPONSE', e.message ?? text, response.status, e.retry_after ?? headerRetry, e.details, requestId);
  }
  if (b && b.success === false) {
    const reason = typeof b.reason === 'string' ? b.reason : null;
    return new RunloadError('UPLOAD_FAILED', reason ? `Upload failed: ${reason}` : 'Upload failed', response.status, headerRetry, reason, requestId);
  }
  if (b && typeof b.error === 'string') {
    const code = response.status === 401 ? 'UNAUTHORIZED' : response.status === 403 ? 'FORBIDDEN' : 'INVALID_REQUEST';
    return new RunloadError(code, b.error, response.status, headerRetry, undefined, requestId);
  }
  return new RunloadError('UNEXPECTED_RESPONSE', `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, response.status, headerRetry, undefined, requestId);
}
