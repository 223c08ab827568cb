/** Serves an h3 app over `node:http`, with a graceful close. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, type H3 } from 'h3';

export interface RunningHttpServer {
  readonly server: Server;
  readonly url: string;
  readonly port: number;
  /** Stops accepting, lets requests in flight finish (up to `graceMs`), then closes what is left. */
  close(graceMs?: number): Promise<void>;
}

export async function startHttpServer(app: H3, options: { host: string; port: number }): Promise<RunningHttpServer> {
  const server = createServer(toNodeHandler(app));
  server.keepAliveTimeout = 5000;
  server.requestTimeout = 0; // long uploads are bounded by the size cap, not a clock
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
