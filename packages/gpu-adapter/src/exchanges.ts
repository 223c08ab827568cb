/**
 * What one call to a ComfyUI server does with the answer as undici hands it over (its dispatch
 * handlers): a whole answer gathered into one buffer, or a download passed on as it comes with the
 * pool's connection paused while the reader is behind. Errors of undici's inactivity timers are
 * told in runload's words.
 * @module
 */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

/** An answer: its status, its content type as the server named it, and its body. */
export interface Answer<Body> {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: Body;
}

/** The answer grew past what runload reads; the connection was dropped unread. */
export class AnswerTooLarge extends Error {}

type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string): string | null => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
};

/** undici's inactivity timeouts, said as what happened. */
function told(error: Error, idleMs: number): Error {
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return Object.assign(new Error(`nothing received for ${idleMs} ms`), { cause: error });
  return error;
}

/**
 * A whole answer in memory, up to `maxBytes` (a declared length past it fails before a byte is
 * read). undici fails it once nothing came for `idleMs`; it fails itself at the first piece that
 * comes past `timeoutMs` in all (no timer of its own: a call is over in moments).
 */
export class BufferedExchange implements Dispatcher.DispatchHandler {
  readonly answer: Promise<Answer<Buffer>>;
  private resolve!: (answer: Answer<Buffer>) => void;
  private reject!: (error: Error) => void;
  private status = 0;
  private contentType: string | null = null;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly deadline: number;

  constructor(
    private readonly maxBytes: number,
    private readonly timeoutMs: number,
    private readonly idleMs: number,
  ) {
    this.deadline = Date.now() + timeoutMs;
    this.answer = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  // Present so that undici calls this handler by its current interface.
  onRequestStart(): void {}

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Headers): void {
    this.status = statusCode;
    this.contentType = header(headers, 'content-type');
    const declared = Number(header(headers, 'content-length'));
    if (Number.isFinite(declared) && declared > this.maxBytes) controller.abort(new AnswerTooLarge());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return controller.abort(new AnswerTooLarge());
    if (Date.now() > this.deadline) return controller.abort(new Error(`no whole answer within ${this.timeoutMs} ms`));
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const body = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.size);
    this.resolve({ status: this.status, contentType: this.contentType, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.reject(told(error, this.idleMs));
  }
}

/**
 * A download: settles once the head came, then passes the bytes on as they come, pausing the
 * connection while the reader is behind. The exchange ends after `timeoutMs` in all, once nothing
 * moved for `idleMs` (undici's timers), or when `signal` aborts; the reader of the body then gets
 * the error.
 */
export class StreamedExchange implements Dispatcher.DispatchHandler {
  readonly answer: Promise<Answer<Readable>>;
  private resolve!: (answer: Answer<Readable>) => void;
  private reject!: (error: Error) => void;
  private controller: Dispatcher.DispatchController | null = null;
  /** Why the exchange must end, when that was decided before undici started it. */
  private endedEarly: Error | null = null;
  /** The head came: failures from now on are the body's. */
  private answered = false;
  /** undici is done with the exchange (it ended or failed). */
  private settled = false;
  private readonly body: Readable;
  private readonly timer: NodeJS.Timeout;
  private readonly idleMs: number;

  private readonly signal: AbortSignal | undefined;

  constructor(timeoutMs: number, idleMs: number | undefined, callerSignal?: AbortSignal) {
    // A signal of its own, which the caller's aborts: the caller's lives long (a dispatcher's,
    // shared by every download in flight) and so takes no listener per download.
    this.signal = callerSignal && AbortSignal.any([callerSignal]);
    this.idleMs = idleMs ?? timeoutMs;
    this.answer = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.body = new Readable({
      read: () => this.controller?.resume(),
      // A reader that lets the body go (a download nobody took) ends the exchange: the connection
      // is closed rather than held paused.
      destroy: (error, done) => {
        this.end(error ?? new Error('the download was let go'));
        done(error);
      },
    });
    this.timer = setTimeout(() => this.end(new Error(`no whole answer within ${timeoutMs} ms`)), timeoutMs);
    this.timer.unref();
    if (this.signal?.aborted) this.end(this.signal.reason as Error);
    else this.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.endedEarly) controller.abort(this.endedEarly);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Headers): void {
    this.answered = true;
    this.resolve({ status: statusCode, contentType: header(headers, 'content-type'), body: this.body });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.body.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.settle();
    this.body.push(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.settle();
    const failure = told(error, this.idleMs);
    if (!this.answered) return this.reject(failure);
    // A body nobody reads yet (a download started ahead) keeps its error for its reader.
    if (this.body.listenerCount('error') === 0) this.body.once('error', () => undefined);
    this.body.destroy(failure);
  }

  private readonly onAbort = (): void => this.end((this.signal?.reason as Error | undefined) ?? new Error('aborted'));

  private end(reason: Error): void {
    if (this.settled) return;
    if (this.controller) this.controller.abort(reason);
    else this.endedEarly = reason;
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}
