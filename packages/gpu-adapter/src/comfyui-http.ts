/**
 * HTTP calls to one ComfyUI server, with timeouts; an unreachable server is SERVICE_UNAVAILABLE.
 * Through an undici connection pool, each exchange handled as its bytes come (`exchanges.ts`):
 * every run makes a few of these calls, and on loopback `node:http` with a signal and an async
 * read took about three times the CPU per call, `fetch` five times.
 * @module
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Pool } from 'undici';
import { CoreError } from '@runload/core';
import { authHeaders, type AuthHeader } from './backend-auth.js';
import { AnswerTooLarge, BufferedExchange, StreamedExchange, type Answer } from './exchanges.js';

const IDLE_CONNECTION_MS = 4000;
const MIB = 1024 * 1024;
/**
 * The largest JSON answer read from a backend: `/object_info` of a server with many custom nodes
 * is a few MiB; a larger answer (a history of 300 MB) would take the memory of the whole server.
 */
export const MAX_ANSWER_BYTES = 32 * MIB;

export interface HttpResult {
  readonly status: number;
  readonly body: unknown;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
  /** The largest answer read (history, object_info, queue); past it the call fails. */
  readonly maxAnswerBytes?: number;
  /** Fails the exchange once no byte has moved either way for this long (transfers, whose total is long). */
  readonly idleMs?: number;
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

/** A download: its content type as the server named it, and its bytes as they come. */
export interface StreamedResponse {
  readonly contentType: string | null;
  readonly body: Readable;
}

/** Errors of a kept connection the server closed as a request went out on it. */
const DROPPED_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

export class ComfyUiHttp {
  private readonly pool: Pool;
  /** The path the server is mounted at, if any (a server behind a proxy at `https://host/comfy`). */
  private readonly prefix: string;
  private readonly headers: Record<string, string>;

  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs: number,
    /** Credentials for a server behind an authenticating proxy: sent, never shown. */
    auth: AuthHeader | null = null,
  ) {
    const url = new URL(baseUrl);
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.headers = authHeaders(auth);
    // An idle connection is closed before servers usually close theirs (Node's 5 s, aiohttp's 75 s),
    // so a call rarely finds one the server has just dropped; a GET that does is sent again.
    this.pool = new Pool(url.origin, { keepAliveTimeout: IDLE_CONNECTION_MS, keepAliveMaxTimeout: IDLE_CONNECTION_MS });
  }

  async request(method: 'GET' | 'POST', path: string, body?: unknown, options: RequestOptions = {}): Promise<HttpResult> {
    const maxBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    let answer: Answer<Buffer>;
    try {
      answer = await this.retriedGet(method, () => this.buffered(method, path, body, maxBytes, options));
    } catch (error) {
      if (error instanceof AnswerTooLarge) {
        throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${method} ${short(path)} with more than ${maxBytes % MIB === 0 ? `${maxBytes / MIB} MiB` : `${maxBytes} bytes`}, more than runload reads`);
      }
      throw this.unreachable(`${method} ${short(path)}`, error);
    }
    const text = answer.body.toString('utf8');
    const { status } = answer;
    if (status >= 500 && !options.allowServerErrors) {
      throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${status} to ${method} ${short(path)}: ${text.slice(0, 200)}`);
    }
    let parsed: unknown = text;
    if (text && (answer.contentType ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch (error) {
        throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${method} ${short(path)} with broken JSON`, { cause: error });
      }
    }
    return { status, body: parsed };
  }

  async getJson<T>(path: string, timeoutMs?: number): Promise<T> {
    const result = await this.request('GET', path, undefined, timeoutMs === undefined ? {} : { timeoutMs });
    if (result.status !== 200 || typeof result.body !== 'object' || result.body === null) {
      throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${result.status} to GET ${short(path)}`);
    }
    return result.body as T;
  }

  /**
   * A streamed GET (downloads): the answer, its body not yet read. The exchange fails after
   * `timeoutMs` in all, or once nothing moved for `idleMs` (a server that stopped answering must
   * not hold a run's outcome, and a stopping server, for the whole of `timeoutMs`), or as soon as
   * `signal` aborts (a stopping runload does not wait for a slow but moving download).
   */
  async stream(path: string, timeoutMs: number, idleMs?: number, signal?: AbortSignal): Promise<StreamedResponse> {
    let answer: Answer<Readable>;
    try {
      if (signal?.aborted) throw signal.reason;
      answer = await this.retriedGet('GET', () => {
        const exchange = new StreamedExchange(timeoutMs, idleMs, signal);
        this.pool.dispatch(this.options('GET', path, undefined, idleMs ?? timeoutMs), exchange);
        return exchange.answer;
      });
    } catch (error) {
      throw this.unreachable(`GET ${short(path)}`, error);
    }
    if (answer.status !== 200) {
      answer.body.resume(); // drained, so the connection goes back to the pool
      throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${answer.status} to GET ${short(path)}`);
    }
    return { contentType: answer.contentType, body: answer.body };
  }

  /** Closes the idle connections kept for the next calls. */
  close(): void {
    void this.pool.destroy().catch(() => undefined);
  }

  /**
   * A whole answer. Its bound is the call's timeout while nothing comes (before the head, and
   * between two pieces of the body), and the call fails at the first piece past it in all.
   */
  private buffered(method: 'GET' | 'POST', path: string, body: unknown, maxBytes: number, options: RequestOptions): Promise<Answer<Buffer>> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const exchange = new BufferedExchange(maxBytes, timeoutMs, options.idleMs ?? timeoutMs);
    this.pool.dispatch(this.options(method, path, body, options.idleMs ?? timeoutMs), exchange);
    return exchange.answer;
  }

  /** A kept connection the server closed as it was reused: a GET never reached it, and is sent again. */
  private async retriedGet<T>(method: 'GET' | 'POST', send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if (method === 'GET' && DROPPED_CONNECTION.has((error as { code?: string }).code ?? '')) return send();
      throw error;
    }
  }

  private options(method: 'GET' | 'POST', path: string, body: unknown, idleMs: number) {
    const headers: Record<string, string> = { ...this.headers };
    let payload: string | Readable | null = null;
    if (body instanceof StreamedBody) {
      headers['content-type'] = body.contentType;
      payload = Readable.fromWeb(body.stream as WebReadableStream<Uint8Array>);
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    // undici's own timeouts are of inactivity: before the head, and between two pieces of the body.
    return { path: `${this.prefix}${path}`, method, headers, body: payload, headersTimeout: idleMs, bodyTimeout: idleMs };
  }

  private unreachable(what: string, error: unknown): CoreError {
    return new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} is unreachable (${what}): ${(error as Error).message}`, { cause: error });
  }
}

/** Paths carry file names, which can carry a run's inputs: messages and logs keep only their start. */
function short(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…(${path.length} characters)` : path;
}
