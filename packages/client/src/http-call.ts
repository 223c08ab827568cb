/**
 * One API call with its retries, shared by the account client and the admin client: the Bearer
 * credential, a JSON or multipart body, 429 and 503 retried after `Retry-After` (or a backoff)
 * while allowed, any other failure thrown as a RunloadError.
 * @module
 */
import { errorFromResponse, type RunloadError } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  readonly retries?: number;
  /** The first backoff when the server names no `Retry-After` (default 500 ms; doubled each time, with jitter). */
  readonly baseDelayMs?: number;
  /** A wait longer than this is not made: the error is thrown instead (default 60 s; a GPU quota may reset days later). */
  readonly maxDelayMs?: number;
}

export interface Call {
  readonly method: string;
  /** Under `/api/v1`, with its query. */
  readonly path: string;
  readonly json?: unknown;
  readonly form?: () => FormData;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal | undefined;
}

export interface CallSettings {
  readonly base: string;
  readonly credential: string;
  readonly fetch: typeof fetch;
  readonly retry: Required<RetryOptions> | null;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });


export function callSettings(
  baseUrl: string,
  credential: string,
  options: { fetch?: typeof fetch; retry?: RetryOptions | false; sleep?: (ms: number, signal?: AbortSignal) => Promise<void> },
): CallSettings {
  return {
    base: baseUrl.replace(/\/+$/, ''),
    credential,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    retry: options.retry === false ? null : { retries: 3, baseDelayMs: 500, maxDelayMs: 60_000, ...options.retry },
    sleep: options.sleep ?? defaultSleep,
  };
}

export async function sendCall(settings: CallSettings, call: Call): Promise<Response> {
  const url = `${settings.base}/api/v1${call.path}`;
  for (let attempt = 0; ; attempt += 1) {
    const headers: Record<string, string> = { Authorization: `Bearer ${settings.credential}`, ...call.headers };
    let body: string | FormData | undefined;
    if (call.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(call.json);
    } else if (call.form) {
      body = call.form();
    }
    const response = await settings.fetch(url, { method: call.method, headers, ...(body !== undefined ? { body } : {}), ...(call.signal ? { signal: call.signal } : {}) });
    if (response.ok) return response;
    const error = await errorFromResponse(response);
    const delay = retryDelay(settings.retry, error, attempt);
    if (delay === null) throw error;
    await settings.sleep(delay, call.signal);
  }
}

/** Milliseconds to wait before retrying, or null to give up. */
function retryDelay(retry: Required<RetryOptions> | null, error: RunloadError, attempt: number): number | null {
  if (!retry || attempt >= retry.retries || (error.status !== 429 && error.status !== 503)) return null;
  const backoff = retry.baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2);
  const delay = error.retryAfter !== null ? error.retryAfter * 1000 : backoff;
  return delay <= retry.maxDelayMs ? delay : null;
}
