/**
 * A lingering close, as web servers do it: a refusal answered while the client is still sending
 * its body (an upload over the cap) is followed by the end of what the server sends, and then
 * the server keeps reading and dropping what arrives for a short while before it closes.
 *
 * Closed at once, the socket would still hold unread bytes of the body, and the kernel answers
 * those with a reset: a client still writing then fails with EPIPE or ECONNRESET and often never
 * reads the answer that had already reached it (Node's own client drops it), so the user sees a
 * broken connection instead of "File too large".
 * @module
 */
import type { Socket } from 'node:net';

/** How long the body's remaining bytes are read and dropped after the answer, at most. */
export const LINGER_MS = 2000;

/**
 * Makes `socket`'s close, once Node's HTTP server asks for it after the answer, linger: its
 * sending side ends, what the client still sends is read and dropped, and it is destroyed when
 * the client closes its side or after `lingerMs`, whichever comes first.
 */
export function lingerBeforeClose(socket: Socket, lingerMs = LINGER_MS): void {
  // Node's HTTP server closes a connection it answered with `Connection: close` through
  // `destroySoon` (and falls back to `end` without it); replacing it on this socket alone keeps
  // every other connection as Node handles it.
  const lingering = socket as Socket & { destroySoon?: () => void };
  lingering.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    timer.unref();
    socket.once('end', () => socket.destroy());
    socket.once('close', () => clearTimeout(timer));
    socket.on('data', () => undefined);
    socket.resume();
  };
}
