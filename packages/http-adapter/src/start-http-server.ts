/** Serves an h3 app over `node:http`, with a graceful close. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, type H3 } from 'h3';
import { answerClientError, type ClientErrorLog } from './client-error-response.js';

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  /** Where errors of the connection (Node's own 400/408/431, clients going away) are logged. */
  readonly log?: ClientErrorLog;
  /** How long a client may take to send its headers before a 408 (Node's default: 60 s). */
  readonly headersTimeoutMs?: number;
  /**
   * How long a connection may carry no bytes either way before it is closed (default 120 s): a
   * client that stops sending an upload midway would otherwise hold it, and its staged bytes,
   * forever. Event streams send a heartbeat every 15 s, so they stay open.
   */
  readonly idleTimeoutMs?: number;
  /**
   * Called as the close begins, once the server stops accepting: ends the responses that would
   * never finish by themselves (event streams), so the close does not wait out its grace for them.
   * The close resolves once it is done as well.
   */
  readonly onClosing?: () => Promise<void>;
}

export interface RunningHttpServer {
  readonly server: Server;
  readonly url: string;
  readonly port: number;
  /** Stops accepting, lets requests in flight finish (up to `graceMs`), then closes what is left. */
  close(graceMs?: number): Promise<void>;
}

/** The app as a `node:http` request listener, for embedding in a server of one's own. */
export function toNodeListener(app: H3): ReturnType<typeof toNodeHandler> {
  return toNodeHandler(app);
}

/** Listens on `host:port` (port 0 picks a free one) and reports the address it bound. */
export async function startHttpServer(app: H3, options: HttpServerOptions): Promise<RunningHttpServer> {
  const headersTimeout = options.headersTimeoutMs ?? 60_000;
  // Node checks its timeouts on this interval; a short headers timeout needs a shorter one.
  const server = createServer({ connectionsCheckingInterval: Math.min(30_000, Math.max(50, headersTimeout / 4)) }, toNodeListener(app));
  server.keepAliveTimeout = 5000;
  server.headersTimeout = headersTimeout;
  server.requestTimeout = 0; // long uploads are bounded by the size cap, not a clock
  server.timeout = options.idleTimeoutMs ?? 120_000; // but a stalled one is closed
  server.on('clientError', answerClientError(options.log ?? (() => undefined)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closing = false;
  // Once closing, a keep-alive connection is let go as soon as its last response is out, not after its idle timeout.
  server.on('request', (_req, res) => {
    res.once('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: async (graceMs = 10_000) => {
      closing = true;
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Awaited too: what it cleans up (the streams' slots) still uses the storage, which closes after this.
      const cleanedUp = options.onClosing?.().catch(() => undefined);
      await Promise.all([closed, cleanedUp]);
      clearTimeout(timer);
    },
  };
}
