/**
 * The baseline: a bare node:http server. GET answers fixed bytes (a poll response), POST /upload
 * streams the body as it is to a file and syncs it to disk before answering (as runload does
 * before it answers 201), other POSTs answer fixed bytes. Prints `listening on http://…`.
 */
import { createWriteStream, fsyncSync, openSync, closeSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const body = Buffer.from(process.env['BASELINE_BODY'] ?? '{}');
const created = Buffer.from(process.env['BASELINE_CREATED'] ?? '{}');
const dir = process.env['BASELINE_DIR'] ?? '.';
let n = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    return res.end(body);
  }
  if (req.url?.startsWith('/upload')) {
    n += 1;
    const file = path.join(dir, `upload-${n}`);
    void pipeline(req, createWriteStream(file)).then(() => {
      const fd = openSync(file, 'r');
      fsyncSync(fd);
      closeSync(fd);
      rmSync(file, { force: true });
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    return;
  }
  req.resume();
  req.on('end', () => {
    res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'content-length': created.length });
    res.end(created);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
