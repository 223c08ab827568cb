/**
 * A TCP proxy in front of a server, to break what passes between a client and it: drop every
 * WebSocket connection (a broken socket), or keep them open and silent (a socket that hangs).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<{ client: Socket; upstream: Socket; ws: boolean }>();
  private muted = false;
  url = '';

  constructor(private readonly targetPort: number) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      const pair = { client, upstream, ws: false };
      this.sockets.add(pair);
      client.once('data', (first: Buffer) => {
        pair.ws = /^GET \/(api\/)?ws\b/.test(first.toString('latin1', 0, 16));
        upstream.write(first);
        client.on('data', (chunk: Buffer) => upstream.write(chunk));
      });
      upstream.on('data', (chunk: Buffer) => {
        if (!(pair.ws && this.muted)) client.write(chunk);
      });
      const end = () => {
        this.sockets.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Cuts every WebSocket connection now (the client sees them close). */
  dropSockets(): number {
    let dropped = 0;
    for (const pair of [...this.sockets]) {
      if (!pair.ws) continue;
      pair.client.destroy();
      pair.upstream.destroy();
      dropped += 1;
    }
    return dropped;
  }

  /** WebSocket connections stay open but nothing more reaches the client. */
  mute(): void {
    this.muted = true;
  }

  async close(): Promise<void> {
    for (const pair of this.sockets) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
