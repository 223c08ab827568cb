/** Response helpers that answer as aiohttp does: JSON with charset, empty 200 acks, plain-text errors. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toComfyJson } from './object-info.js';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = toComfyJson(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The plain ack of `POST /queue`, `/interrupt`, `/free` and `/history`: 200, no body. */
export function sendEmpty(res: ServerResponse, status = 200): void {
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** aiohttp's answer to an exception escaping a handler. */
export function sendServerError(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendText(res, 500, '500 Internal Server Error\n\nServer got itself in trouble', { connection: 'close' });
}

export function sendNotFound(res: ServerResponse): void {
  sendText(res, 404, '404: Not Found');
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `await request.json()`: throws on a malformed body, which the caller turns into a 500 (as aiohttp does). */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  return JSON.parse((await readBody(req)).toString('utf8')) as unknown;
}
