/**
 * HTTP calls to one ComfyUI server, with timeouts; an unreachable server is SERVICE_UNAVAILABLE.
 * Through `node:http` with a keep-alive agent, each answer read as its events come: every run makes
 * a few of these calls, and per call on loopback `fetch` took about five times the CPU, and
 * `node:http` with an abort signal per call and an async read of the answer about three times.
 * (undici's pool took a little less than this, but about 18 MiB more of the server's memory.)
 * @module
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CoreError } from '@runload/core';
import { authHeaders, type AuthHeader } from './backend-auth.js';
import { whenAborted } from './when-aborted.js';

const IDLE_CONNECTION_MS = 4000;
const MIB = 1024 * 1024;
/**
 * The largest JSON answer read from a backend: `/object_info` of a server with many custom nodes
 * is a few MiB; a larger answer (a history of 300 MB) would take the memory of the whole server.
 */
export const MAX_ANSWER_BYTES = 32 * MIB;

/** The answer grew past what runload reads; the connection was dropped unread. */
class AnswerTooLarge extends Error {}

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

/** A whole answer. */
interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
}

/** How one exchange is bounded and stopped. */
interface Bounds {
  /** The whole exchange, answer's bytes included. */
  readonly timeoutMs: number;
  /** No byte moved either way for this long (transfers). */
  readonly idleMs?: number | undefined;
  /** Stops the exchange wherever it is. */
  readonly signal?: AbortSignal | undefined;
}

export class ComfyUiHttp {
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  /** Where requests go: the server's host and port, and the path it is mounted at (behind a proxy at `https://host/comfy`, say). */
  private readonly target: { readonly hostname: string; readonly port: string; readonly prefix: string };
  private readonly headers: Record<string, string>;

  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs: number,
    /** Credentials for a server behind an authenticating proxy: sent, never shown. */
    auth: AuthHeader | null = null,
  ) {
    const url = new URL(baseUrl);
    const secure = url.protocol === 'https:';
    this.transport = secure ? https : http;
    // Parsed once, not at each call: an IPv6 host goes without its brackets.
    this.target = { hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port, prefix: url.pathname.replace(/\/+$/, '') };
    this.headers = authHeaders(auth);
    // An idle connection is closed before servers usually close theirs (Node's 5 s, aiohttp's 75 s),
    // so a call rarely finds one the server has just dropped; a GET that does is sent again.
    const agentOptions = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
    this.agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  async request(method: 'GET' | 'POST', path: string, body?: unknown, options: RequestOptions = {}): Promise<HttpResult> {
    const maxBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    const bounds = { timeoutMs: options.timeoutMs ?? this.timeoutMs, idleMs: options.idleMs };
    let answer: Answer;
    try {
      answer = await this.resentIfDropped(method, () => this.whole(method, path, body, maxBytes, bounds));
    } catch (error) {
      if (error instanceof AnswerTooLarge) {
        throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${method} ${short(path)} with more than ${maxBytes % MIB === 0 ? `${maxBytes / MIB} MiB` : `${maxBytes} bytes`}, more than runload reads`);
      }
      throw this.unreachable(`${method} ${short(path)}`, error);
    }
    const { status, text } = answer;
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
    let res: IncomingMessage;
    try {
      res = await this.resentIfDropped('GET', () => this.send('GET', path, undefined, { timeoutMs, idleMs, signal }));
    } catch (error) {
      throw this.unreachable(`GET ${short(path)}`, error);
    }
    if (res.statusCode !== 200) {
      res.resume(); // drained, so the connection goes back to the agent
      throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${res.statusCode} to GET ${short(path)}`);
    }
    return { contentType: res.headers['content-type'] ?? null, body: res };
  }

  /** Closes the idle connections kept for the next calls. */
  close(): void {
    this.agent.destroy();
  }

  /** A kept connection the server closed as it was reused: a GET never reached it, and is sent again. */
  private async resentIfDropped<T>(method: 'GET' | 'POST', send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if (method === 'GET' && (error as { reusedSocket?: boolean }).reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET') return send();
      throw error;
    }
  }

  /** The whole answer, up to `maxBytes` (a declared length past it fails before a byte is read). */
  private async whole(method: 'GET' | 'POST', path: string, body: unknown, maxBytes: number, bounds: Bounds): Promise<Answer> {
    const res = await this.send(method, path, body, bounds);
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.destroy();
      throw new AnswerTooLarge();
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return res.destroy(new AnswerTooLarge());
        chunks.push(chunk);
      });
      res.once('error', reject);
      // A connection closed before the answer's end, whatever the socket said.
      res.once('close', () => res.complete || reject(new Error('the answer was cut short')));
      res.once('end', () => {
        const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)).toString('utf8');
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? null, text });
      });
    });
  }

  /** Sends the request; resolves with the answer once its head came, its body bounded as the request is. */
  private send(method: 'GET' | 'POST', path: string, body: unknown, bounds: Bounds): Promise<IncomingMessage> {
    const headers: Record<string, string | number> = { ...this.headers };
    let payload: string | Readable | null = null;
    if (body instanceof StreamedBody) {
      headers['content-type'] = body.contentType;
      payload = Readable.fromWeb(body.stream as WebReadableStream<Uint8Array>);
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    return new Promise((resolve, reject) => {
      let answer: IncomingMessage | null = null;
      const { hostname, port, prefix } = this.target;
      const req = this.transport.request({ hostname, port, path: `${prefix}${path}`, method, headers, agent: this.agent }, (res) => {
        answer = res;
        // The exchange is over once the answer is read or let go: its bounds go with it.
        res.once('close', settle);
        resolve(res);
      });
      const stop = (error: Error) => {
        answer?.destroy(error);
        req.destroy(error);
      };
      // The whole exchange, the answer's bytes included.
      const timer = setTimeout(() => stop(new Error(`no whole answer within ${bounds.timeoutMs} ms`)), bounds.timeoutMs);
      // The caller's signal lives long (a dispatcher's): the link goes with the exchange.
      const { signal } = bounds;
      const unlink = signal ? whenAborted(signal, () => stop((signal.reason as Error | undefined) ?? new Error('aborted'))) : null;
      function settle() {
        clearTimeout(timer);
        unlink?.();
      }
      // The socket's inactivity, while the answer's body is read too (its reader gets this error).
      if (bounds.idleMs !== undefined) {
        const idleMs = bounds.idleMs;
        req.setTimeout(idleMs, () => stop(new Error(`nothing received for ${idleMs} ms`)));
      }
      req.once('error', (error: Error & { reusedSocket?: boolean }) => {
        settle();
        error.reusedSocket = req.reusedSocket;
        reject(error);
      });
      if (payload instanceof Readable) pipeline(payload, req).catch(reject);
      else req.end(payload ?? undefined);
    });
  }

  private unreachable(what: string, error: unknown): CoreError {
    return new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} is unreachable (${what}): ${(error as Error).message}`, { cause: error });
  }
}

/** Paths carry file names, which can carry a run's inputs: messages and logs keep only their start. */
function short(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…(${path.length} characters)` : path;
}
