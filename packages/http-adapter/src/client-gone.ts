/**
 * A client that went away mid-request is an event, not a fault of the server (CONTRACT 12): it
 * is logged at `info`, without a stack.
 * @module
 */
import type { IncomingMessage } from 'node:http';

export class ClientGoneError extends Error {
  constructor() {
    super('the client went away before the body ended');
  }
}

const GONE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/** True when `error` comes from the client leaving, or the request was cut before it ended. */
export function isClientGone(error: unknown, nodeReq?: IncomingMessage): boolean {
  if (error instanceof ClientGoneError) return true;
  if (GONE_CODES.has(String((error as { code?: unknown } | null)?.code))) return true;
  return nodeReq !== undefined && !nodeReq.complete && nodeReq.destroyed;
}
