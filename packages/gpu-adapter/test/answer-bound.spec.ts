/** What runload reads from a backend is bounded: an answer past the bound fails the call with a clear error, unread. */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreError } from '@runload/core';
import { ComfyUiHttp } from '../src/comfyui-http.js';

describe('ComfyUiHttp answer bound', () => {
  let server: http.Server;
  let url: string;
  before(async () => {
    server = http.createServer((req, res) => {
      const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size'));
      const body = JSON.stringify({ pad: 'x'.repeat(size) });
      if (req.url?.startsWith('/chunked')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        // Written in pieces without a length, as a streaming server does.
        for (let i = 0; i < body.length; i += 1000) res.write(body.slice(i, i + 1000));
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((r) => server.close(r)));

  it('reads an answer within the bound', async () => {
    const client = new ComfyUiHttp(url, 5000);
    const result = await client.request('GET', '/history?size=500', undefined, { maxAnswerBytes: 2048 });
    expect((result.body as { pad: string }).pad).to.have.length(500);
    client.close();
  });

  for (const how of ['with a declared length', 'streamed without one'] as const) {
    it(`fails a call whose answer is past the bound, ${how}, naming the bound`, async () => {
      const client = new ComfyUiHttp(url, 5000);
      const path = how === 'streamed without one' ? '/chunked/history?size=20000' : '/history?size=20000';
      const error = await client.request('GET', path, undefined, { maxAnswerBytes: 2048 }).catch((e: unknown) => e);
      expect(CoreError.hasCode(error, 'SERVICE_UNAVAILABLE')).to.equal(true);
      expect((error as Error).message).to.match(/answered GET \/.*history\?size=20000 with more than 2048 bytes, more than runload reads$/);
      client.close();
    });
  }
});
