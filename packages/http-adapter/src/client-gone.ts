/**
 * A client that went away mid-request is an event, not a fault of the server: it
 * is logged at `info`, without a stack.
 * @module
 */
export class ClientGoneError extends Error {
  constructor() {
    super('the client went away before the body ended');
  }
}

const GONE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/** True when `error` comes from the client leaving before its request ended. */
export function isClientGone(error: unknown): boolean {
  if (error instanceof ClientGoneError) return true;
  return GONE_CODES.has(String((error as { code?: unknown } | null)?.code));
}
