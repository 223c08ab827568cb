/**
 * The runload API client: fetch-based, with no Node-only dependency, so it runs in browsers and
 * Node alike. Its types are the server's own schemas (`@runload/api-schema`).
 * @module
 */
import type { Account, AppList, AppVersion, Asset, CreatedRun, Run, RunList, RunPreviewEvent, RunStatus, WebhookEvent } from '@runload/api-schema';
import { errorFromResponse, RunloadError } from './errors.js';
import { readServerSentEvents } from './server-sent-events.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  readonly retries?: number;
  /** The first backoff when the server names no `Retry-After` (default 500 ms; doubled each time, with jitter). */
  readonly baseDelayMs?: number;
  /** A wait longer than this is not made: the error is thrown instead (default 60 s; a GPU quota may reset days later). */
  readonly maxDelayMs?: number;
}

export interface RunloadClientOptions {
  /** Where runload listens, e.g. `https://runload.example.com` (the `/api/v1` prefix is added). */
  readonly baseUrl: string;
  /** `rl_<prefix>_<secret>`. */
  readonly apiKey: string;
  /** Defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /** Automatic retry of 429 and 503 answers; `false` turns it off. */
  readonly retry?: RetryOptions | false;
  /** How the client waits; replaceable in tests. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface CreateRunOptions {
  readonly inputs?: Record<string, unknown>;
  /** An http(s) URL that receives the run's events. */
  readonly webhook?: string;
  readonly webhookEvents?: readonly WebhookEvent[];
  /** Makes a retried creation safe: the same key returns the first answer. */
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

export interface WaitOptions {
  /** Called with each new state of the run. */
  readonly onUpdate?: (run: Run) => void;
  /**
   * Called when the running run has a new preview image (at most every 500 ms, from the event
   * stream only; not while polling). Read the image with `getRunPreview`.
   */
  readonly onPreview?: (preview: RunPreviewEvent) => void;
  /** Poll interval when the event stream is not available and the server names no `Retry-After` (default 1000 ms). */
  readonly pollIntervalMs?: number;
  /** Never use the event stream. */
  readonly polling?: boolean;
  readonly signal?: AbortSignal;
}

/** The latest preview image of a run. */
export interface RunPreview {
  readonly image: Blob;
  readonly contentType: string;
  /** Grows with each preview of the run. */
  readonly seq: number;
}

export interface PageOptions {
  readonly limit?: number;
  readonly cursor?: string | null;
  readonly signal?: AbortSignal;
}

/** What `uploadAsset` accepts here; the `@runload/client/node` entry adds file paths. */
export type UploadSource = Blob | ReadableStream<Uint8Array>;

const TERMINAL: ReadonlySet<RunStatus> = new Set<RunStatus>(['succeeded', 'failed', 'canceled', 'expired']);

export function isTerminal(run: Pick<Run, 'status'>): boolean {
  return TERMINAL.has(run.status);
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

interface Call {
  readonly method: string;
  readonly path: string;
  readonly json?: unknown;
  readonly form?: () => FormData;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal | undefined;
}

export class RunloadClient {
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;
  private readonly retry: Required<RetryOptions> | null;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: RunloadClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.retry = options.retry === false ? null : { retries: 3, baseDelayMs: 500, maxDelayMs: 60_000, ...options.retry };
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** Uploads an image, video or audio file; its type is read from the bytes. */
  async uploadAsset(source: UploadSource, filename = 'upload', options: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<Asset> {
    // A stream is read once into a Blob, so that a retried upload can send it again.
    const blob = source instanceof Blob ? source : await new Response(source).blob();
    return this.json<Asset>({
      method: 'POST',
      path: '/assets',
      form: () => {
        const form = new FormData();
        form.append('file', blob, filename);
        return form;
      },
      headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {},
      signal: options.signal,
    });
  }

  getAsset(assetId: string, signal?: AbortSignal): Promise<Asset> {
    return this.json<Asset>({ method: 'GET', path: `/assets/${encodeURIComponent(assetId)}`, signal });
  }

  /** The bytes of an asset (an output's `url` names the same thing). */
  async downloadAsset(assetId: string, signal?: AbortSignal): Promise<Blob> {
    const response = await this.send({ method: 'GET', path: `/assets/${encodeURIComponent(assetId)}/content`, signal });
    return response.blob();
  }

  /**
   * The latest preview image of a running run (or of one that ended less than ten minutes ago).
   * @throws RunloadError PREVIEW_NOT_FOUND when it has none (yet, or any more), RUN_NOT_FOUND
   */
  async getRunPreview(runId: string, signal?: AbortSignal): Promise<RunPreview> {
    const response = await this.send({ method: 'GET', path: `/runs/${encodeURIComponent(runId)}/preview`, signal });
    return { image: await response.blob(), contentType: response.headers.get('content-type') ?? '', seq: Number(response.headers.get('x-preview-seq')) };
  }

  /** Queues a run of an app version. */
  createRun(appVersionId: string, options: CreateRunOptions = {}): Promise<CreatedRun> {
    const body: Record<string, unknown> = { inputs: options.inputs ?? {} };
    if (options.webhook !== undefined) body['webhook'] = options.webhook;
    if (options.webhookEvents !== undefined) body['webhook_events'] = options.webhookEvents;
    return this.json<CreatedRun>({
      method: 'POST',
      path: `/apps/${encodeURIComponent(appVersionId)}`,
      json: body,
      headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {},
      signal: options.signal,
    });
  }

  getRun(runId: string, signal?: AbortSignal): Promise<Run> {
    return this.json<Run>({ method: 'GET', path: `/runs/${encodeURIComponent(runId)}`, signal });
  }

  listRuns(options: PageOptions = {}): Promise<RunList> {
    return this.json<RunList>({ method: 'GET', path: `/runs${pageQuery(options)}`, signal: options.signal });
  }

  cancelRun(runId: string, signal?: AbortSignal): Promise<Run> {
    return this.json<Run>({ method: 'POST', path: `/runs/${encodeURIComponent(runId)}/cancel`, signal });
  }

  getAccount(signal?: AbortSignal): Promise<Account> {
    return this.json<Account>({ method: 'GET', path: '/account', signal });
  }

  listApps(options: PageOptions = {}): Promise<AppList> {
    return this.json<AppList>({ method: 'GET', path: `/apps${pageQuery(options)}`, signal: options.signal });
  }

  describeApp(appVersionId: string, signal?: AbortSignal): Promise<AppVersion> {
    return this.json<AppVersion>({ method: 'GET', path: `/apps/${encodeURIComponent(appVersionId)}`, signal });
  }

  /**
   * Resolves with the run once it is terminal (succeeded, failed, canceled or expired). Follows
   * `GET /runs/{id}/events` when the server answers it, and polls otherwise.
   */
  async waitForRun(runId: string, options: WaitOptions = {}): Promise<Run> {
    if (!options.polling) {
      const streamed = await this.followEvents(runId, options);
      if (streamed) return streamed;
    }
    const interval = options.pollIntervalMs ?? 1000;
    for (;;) {
      const response = await this.send({ method: 'GET', path: `/runs/${encodeURIComponent(runId)}`, signal: options.signal });
      const run = (await response.json()) as Run;
      options.onUpdate?.(run);
      if (isTerminal(run)) return run;
      const hinted = Number(response.headers.get('retry-after') ?? Number.NaN);
      await this.sleep(Number.isFinite(hinted) && hinted >= 0 ? hinted * 1000 : interval, options.signal);
    }
  }

  /** The terminal run from the event stream, or null when the stream is not available or ended early. */
  private async followEvents(runId: string, options: WaitOptions): Promise<Run | null> {
    let response: Response;
    try {
      response = await this.send({ method: 'GET', path: `/runs/${encodeURIComponent(runId)}/events`, headers: { Accept: 'text/event-stream' }, signal: options.signal });
    } catch (error) {
      // A server without the stream answers NOT_FOUND or METHOD_NOT_ALLOWED for the route itself.
      if (RunloadError.is(error) && (error.code === 'NOT_FOUND' || error.code === 'METHOD_NOT_ALLOWED' || error.code === 'RATE_LIMITED')) return null;
      throw error;
    }
    if (!response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await response.body?.cancel();
      return null;
    }
    let last: Run | null = null;
    for await (const event of readServerSentEvents(response.body)) {
      if (event.event === 'preview') options.onPreview?.(JSON.parse(event.data) as RunPreviewEvent);
      if (event.event !== 'run') continue;
      last = JSON.parse(event.data) as Run;
      options.onUpdate?.(last);
      if (isTerminal(last)) return last;
    }
    return null;
  }

  private async json<T>(call: Call): Promise<T> {
    const response = await this.send(call);
    return (await response.json()) as T;
  }

  /** One call, retried on 429 and 503 while allowed; any other failure throws a RunloadError. */
  private async send(call: Call): Promise<Response> {
    const url = `${this.base}/api/v1${call.path}`;
    for (let attempt = 0; ; attempt += 1) {
      const headers: Record<string, string> = { Authorization: `Bearer ${this.options.apiKey}`, ...call.headers };
      let body: string | FormData | undefined;
      if (call.json !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(call.json);
      } else if (call.form) {
        body = call.form();
      }
      const response = await this.fetchImpl(url, { method: call.method, headers, ...(body !== undefined ? { body } : {}), ...(call.signal ? { signal: call.signal } : {}) });
      if (response.ok) return response;
      const error = await errorFromResponse(response);
      const delay = this.retryDelay(error, attempt);
      if (delay === null) throw error;
      await this.sleep(delay, call.signal);
    }
  }

  /** Milliseconds to wait before retrying, or null to give up. */
  private retryDelay(error: RunloadError, attempt: number): number | null {
    if (!this.retry || attempt >= this.retry.retries || (error.status !== 429 && error.status !== 503)) return null;
    const backoff = this.retry.baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2);
    const delay = error.retryAfter !== null ? error.retryAfter * 1000 : backoff;
    return delay <= this.retry.maxDelayMs ? delay : null;
  }
}

function pageQuery(options: PageOptions): string {
  const query = new URLSearchParams();
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  if (options.cursor) query.set('cursor', options.cursor);
  const text = query.toString();
  return text ? `?${text}` : '';
}
