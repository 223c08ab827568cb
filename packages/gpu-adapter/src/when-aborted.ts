/**
 * Listening to a long-lived signal (a dispatcher's, shared by every exchange in flight) without
 * adding a listener to it: the listener goes on a signal of its own, which the long-lived one
 * aborts, and goes with it when unlinked.
 * @module
 */

/** Calls `onAbort` once `signal` aborts (at once when it has); returns what unlinks it. */
export function whenAborted(signal: AbortSignal, onAbort: () => void): () => void {
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  const linked = AbortSignal.any([signal]);
  linked.addEventListener('abort', onAbort, { once: true });
  return () => linked.removeEventListener('abort', onAbort);
}
