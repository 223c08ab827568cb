/**
 * The runload API client: fetch-based, with no Node-only dependency, so it runs in browsers and
 * Node alike. Its types are the server's own schemas (`@runload/api-schema`).
 * @module
 */
import type { Account, AppList, AppVersion, Asset, CreatedRun, Run, RunList, RunPreviewEvent, RunStatus, WebhookEvent } from '@runload/api-schema';
import { RunloadError } from './errors.js';
import { callSettings, sendCall, type Call, type CallSettings, type RetryOptions } from './http-call.js';
import { readServerSentEvents } from './server-sent-events.js';

export type { RetryOptions };

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

export class RunloadClient {
  private readonly settings: CallSettings;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(options: RunloadClientOptions) {
    this.settings = callSettings(options.baseUrl, options.apiKey, options);
    this.sleep = this.settings.sleep;
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
  private send(call: Call): Promise<Response> {
    return sendCall(this.settings, call);
  }
}

export function pageQuery(options: PageOptions, extra: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  if (options.cursor) query.set('cursor', options.cursor);
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) query.set(name, value);
  const text = query.toString();
  return text ? `?${text}` : '';
}
