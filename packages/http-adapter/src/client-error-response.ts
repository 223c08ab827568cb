/**
 * Answers for the errors Node's HTTP server raises itself, before any route sees a request:
 * headers too large (431), a malformed request such as `Content-Length` with
 * `Transfer-Encoding` (400), headers that took too long (408). Written raw on the socket in the
 * structured error form, with an `X-Request-Id`, then the connection is closed.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Errors of a client that is gone: there is nobody to answer. */
const GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export interface ClientErrorAnswer {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/** The documented answer for one of Node's parser or timeout errors. */
export function clientErrorAnswer(error: { code?: string }): ClientErrorAnswer {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'HEADERS_TOO_LARGE', message: 'The request headers are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time' };
    default:
      return { status: 400, code: 'INVALID_REQUEST', message: 'The request could not be read' };
  }
}

export type ClientErrorLog = (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;

/** The `clientError` listener of a `node:http` server. */
export function answerClientError(log: ClientErrorLog, requestId: () => string = randomUUID) {
  return (error: Error & { code?: string }, socket: Duplex): void => {
    // A response already under way (or a socket already closing) cannot take another one.
    const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (GONE.has(error.code ?? '') || !socket.writable || busy) {
      log('info', 'client went away', { error: error.code ?? error.message });
      socket.destroy();
      return;
    }
    const answer = clientErrorAnswer(error);
    const id = requestId();
    const body = JSON.stringify({ error: { code: answer.code, message: answer.message } });
    log('info', 'request refused by the HTTP parser', { requestId: id, status: answer.status, error: error.code ?? error.message });
    socket.end(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
}
