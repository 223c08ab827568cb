/** HTTP calls to one ComfyUI server, with timeouts; an unreachable server is SERVICE_UNAVAILABLE. */
import { CoreError } from '@runload/core';

export interface HttpResult {
  readonly status: number;
  readonly body: unknown;
}

export class ComfyUiHttp {
  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async request(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs = this.timeoutMs): Promise<HttpResult> {
    const init: RequestInit = { method, signal: AbortSignal.timeout(timeoutMs) };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, init);
    } catch (error) {
      throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} is unreachable: ${(error as Error).message}`, { cause: error });
    }
    const text = await res.text();
    if (res.status >= 500) throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${res.status} to ${method} ${path}: ${text.slice(0, 200)}`);
    let parsed: unknown = text;
    if (text && (res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text) as unknown;
    return { status: res.status, body: parsed };
  }

  async getJson<T>(path: string, timeoutMs?: number): Promise<T> {
    const result = await this.request('GET', path, undefined, timeoutMs);
    if (result.status !== 200) throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${result.status} to GET ${path}`);
    return result.body as T;
  }

  /** A streamed GET (downloads). */
  async stream(path: string): Promise<Response> {
    try {
      const res = await fetch(`${this.baseUrl}${path}`, { signal: AbortSignal.timeout(10 * 60_000) });
      if (res.status !== 200 || !res.body) throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${res.status} to GET ${path}`);
      return res;
    } catch (error) {
      if (CoreError.is(error)) throw error;
      throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} is unreachable: ${(error as Error).message}`, { cause: error });
    }
  }
}
