/** A receiver that drips its answer a byte at a time: the attempt's time limit bounds the whole attempt, not idleness. */
import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { newQueuedRun, newWebhookSecret, type WebhookEvent } from '@runload/core';
import { HttpWebhookTransport } from '@runload/http-adapter';

function event(url: string): WebhookEvent {
  const run = { ...newQueuedRun({ id: '6b0f6a35-3f0a-4c41-9d61-3f6f4d1c9a11', accountId: 'a', appVersionId: 'v', createdAt: new Date(0), inputs: {} }), status: 'succeeded' as const };
  return { id: 'msg_x_succeeded', accountId: 'a', runId: run.id, type: 'run.succeeded', url, occurredAt: new Date(1000), run, attempts: 0 };
}

describe('HTTP webhook transport and a dripping receiver', function () {
  this.timeout(10_000);
  const timers = new Set<NodeJS.Timeout>();
  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  afterEach(async () => {
    for (const t of timers) clearInterval(t);
    timers.clear();
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  async function listen(server: net.Server): Promise<number> {
    servers.push(server);
    server.on('connection', (socket: net.Socket) => sockets.add(socket));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return (server.address() as AddressInfo).port;
  }

  it('counts 200 as delivered as soon as the status arrives, while the body drips on', async () => {
    const port = await listen(
      http.createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('o');
          timers.add(setInterval(() => res.write('k'), 50));
        });
      }),
    );
    const outcome = await new HttpWebhookTransport({ allowPrivate: true, timeoutMs: 5000 }).deliver(event(`http://127.0.0.1:${port}/h`), newWebhookSecret());
    expect(outcome).to.deep.equal({ delivered: true, status: 200 });
  });

  it('fails the attempt at its time limit when the answer never completes its headers, however often a byte comes', async () => {
    const port = await listen(
      net.createServer((socket) => {
        socket.once('data', () => {
          socket.write('HTTP/1.1 200 OK\r\n');
          timers.add(setInterval(() => socket.write('x'), 20));
        });
        socket.on('error', () => undefined);
      }),
    );
    const outcome = await new HttpWebhookTransport({ allowPrivate: true, timeoutMs: 300 }).deliver(event(`http://127.0.0.1:${port}/h`), newWebhookSecret());
    expect(outcome).to.deep.equal({ delivered: false, status: null, error: 'no answer within 300 ms' });
  });
});
