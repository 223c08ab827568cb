/** A real webhook receiver on loopback for end-to-end tests: records every request it gets. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly at: number;
}

/** What to answer the n-th request (0-based): a status, or 'hang' to never answer. */
export type Answer = (n: number, received: ReceivedWebhook) => number | 'hang';

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  answer: Answer;
  /** Resolves once `probe` holds for what was received; fails after `timeoutMs`. */
  until(probe: (received: readonly ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(answer: Answer = () => 204): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();
  const hung: http.ServerResponse[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received,
    answer,
    async until(probe, timeoutMs = 15_000) {
      if (probe(received)) return;
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!probe(received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: condition not met within ${timeoutMs} ms (${received.length} received)`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    async close() {
      for (const r of hung) r.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const hook = { headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const n = received.length;
      received.push(hook);
      const status = receiver.answer(n, hook);
      if (status === 'hang') hung.push(res);
      else res.writeHead(status).end();
      for (const w of [...waiters]) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
