/** HTTP calls to one ComfyUI server, with timeouts; an unreachable server is SERVICE_UNAVAILABLE. */
import { CoreError } from '@runload/core';

export interface HttpResult {
  readonly status: number;
  readonly body: unknown;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
  /** Return 5xx answers instead of throwing (the server did answer: e.g. it failed on our prompt). */
  readonly allowServerErrors?: boolean;
}

/** A body sent as it is read (uploads), with its content type. */
export class StreamedBody {
  constructor(
    readonly stream: ReadableStream<Uint8Array>,
    readonly contentType: string,
  ) {}
}

export class ComfyUiHttp {
  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async request(method: 'GET' | 'POST', path: string, body?: unknown, options: RequestOptions = {}): Promise<HttpResult> {
    const init: RequestInit = { method, signal: AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs) };
    if (body instanceof StreamedBody) {
      init.body = body.stream;
      init.headers = { 'content-type': body.contentType };
      (init as RequestInit & { duplex: 'half' }).duplex = 'half';
    } else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.baseUrl}${path}`, init);
      text = await res.text();
    } catch (error) {
      throw this.unreachable(`${method} ${short(path)}`, error);
    }
    if (res.status >= 500 && !options.allowServerErrors) {
      throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${res.status} to ${method} ${short(path)}: ${text.slice(0, 200)}`);
    }
    let parsed: unknown = text;
    if (text && (res.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch (error) {
        throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${method} ${short(path)} with broken JSON`, { cause: error });
      }
    }
    return { status: res.status, body: parsed };
  }

  async getJson<T>(path: string, timeoutMs?: number): Promise<T> {
    const result = await this.request('GET', path, undefined, timeoutMs === undefined ? {} : { timeoutMs });
    if (result.status !== 200 || typeof result.body !== 'object' || result.body === null) {
      throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${result.status} to GET ${short(path)}`);
    }
    return result.body as T;
  }

  /** A streamed GET (downloads): the response, its body not yet read. */
  async stream(path: string, timeoutMs: number): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw this.unreachable(`GET ${short(path)}`, error);
    }
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${res.status} to GET ${short(path)}`);
    }
    return res;
  }

  private unreachable(what: string, error: unknown): CoreError {
    return new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} is unreachable (${what}): ${(error as Error).message}`, { cause: error });
  }
}

/** Paths carry file names, which can carry a run's inputs: messages and logs keep only their start. */
function short(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…(${path.length} characters)` : path;
}
