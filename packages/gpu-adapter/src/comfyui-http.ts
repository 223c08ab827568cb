/**
 * HTTP calls to one ComfyUI server, with timeouts; an unreachable server is SERVICE_UNAVAILABLE.
 * Through `node:http` with a keep-alive agent rather than `fetch`: every run makes a few of these
 * calls, and `fetch` costs about twice the CPU and the time per call on loopback.
 * @module
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CoreError } from '@runload/core';
import { authHeaders, type AuthHeader } from './backend-auth.js';

const IDLE_CONNECTION_MS = 4000;
const MIB = 1024 * 1024;
/**
 * The largest JSON answer read from a backend: `/object_info` of a server with many custom nodes
 * is a few MiB; a larger answer (a history of 300 MB) would take the memory of the whole server.
 */
export const MAX_ANSWER_BYTES = 32 * MIB;

class AnswerTooLarge extends Error {}

/** The answer's text, or AnswerTooLarge (the connection dropped) once it passes `maxBytes`. */
async function readBounded(res: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw new AnswerTooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      res.destroy();
      throw new AnswerTooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

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

export class ComfyUiHttp {
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;

  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs: number,
    /** Credentials for a server behind an authenticating proxy: sent, never shown. */
    private readonly auth: AuthHeader | null = null,
  ) {
    const secure = baseUrl.startsWith('https:');
    this.transport = secure ? https : http;
    // An idle connection is closed before servers usually close theirs (Node's 5 s, aiohttp's 75 s),
    // so a call rarely finds one the server has just dropped; a GET that does is sent again.
    const agentOptions = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
    this.agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  async request(method: 'GET' | 'POST', path: string, body?: unknown, options: RequestOptions = {}): Promise<HttpResult> {
    let res: IncomingMessage;
    let text: string;
    const maxBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    try {
      res = await this.send(method, path, body, options.timeoutMs ?? this.timeoutMs, options.idleMs);
      text = await readBounded(res, maxBytes);
    } catch (error) {
      if (error instanceof AnswerTooLarge) {
        throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${method} ${short(path)} with more than ${maxBytes % MIB === 0 ? `${maxBytes / MIB} MiB` : `${maxBytes} bytes`}, more than runload reads`);
      }
      throw this.unreachable(`${method} ${short(path)}`, error);
    }
    const status = res.statusCode ?? 0;
    if (status >= 500 && !options.allowServerErrors) {
      throw new CoreError('SERVICE_UNAVAILABLE', `ComfyUI at ${this.baseUrl} answered ${status} to ${method} ${short(path)}: ${text.slice(0, 200)}`);
    }
    let parsed: unknown = text;
    if (text && (res.headers['content-type'] ?? '').includes('json')) {
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
      res = await this.send('GET', path, undefined, timeoutMs, idleMs, signal);
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

  /** Sends the request; resolves with the answer once its headers came. */
  private async send(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number, idleMs?: number, signal?: AbortSignal): Promise<IncomingMessage> {
    try {
      return await this.sendOnce(method, path, body, timeoutMs, idleMs, signal);
    } catch (error) {
      // A kept connection the server closed as it was reused: the request never reached it.
      if (method === 'GET' && (error as { reusedSocket?: boolean }).reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET') {
        return this.sendOnce(method, path, body, timeoutMs, idleMs, signal);
      }
      throw error;
    }
  }

  private sendOnce(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number, idleMs?: number, signal?: AbortSignal): Promise<IncomingMessage> {
    const headers: Record<string, string | number> = authHeaders(this.auth);
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
      // The timeout covers the whole exchange, the body's bytes included, as fetch's signal did.
      let answer: IncomingMessage | null = null;
      const req = this.transport.request(`${this.baseUrl}${path}`, { method, headers, agent: this.agent, signal: bounded(timeoutMs, signal) }, (res) => {
        answer = res;
        resolve(res);
      });
      // The socket's inactivity, while the answer's body is read too (its reader gets this error);
      // the whole exchange stays bounded by the signal.
      if (idleMs !== undefined) {
        req.setTimeout(idleMs, () => {
          const stalled = new Error(`nothing received for ${idleMs} ms`);
          (answer as IncomingMessage | null)?.destroy(stalled);
          req.destroy(stalled);
        });
      }
      req.once('error', (error: Error & { reusedSocket?: boolean }) => {
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

/** The whole exchange's bound: `timeoutMs`, or sooner when the caller's signal aborts. */
function bounded(timeoutMs: number, signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([timeout, signal]) : timeout;
}
