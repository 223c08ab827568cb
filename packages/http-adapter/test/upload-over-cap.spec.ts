/** Defect: an upload well over the cap must be refused 413 "File too large" every time, however the client sends it. */
import { expect } from 'chai';
import http from 'node:http';
import { CoreError } from '@runload/core';
import { decideUpload } from '../src/upload-asset-route.js';
import { leftovers, makeHarness, PNG, type Harness } from './harness.js';

/** Sends the whole multipart body at once, as curl does, and reads the answer. */
function sendWhole(h: Harness, auth: Record<string, string>, fileBytes: number): Promise<{ status: number; body: string }> {
  const url = new URL(h.url as string);
  const head = Buffer.from(`--b\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
  const tail = Buffer.from('\r\n--b--\r\n');
  const body = Buffer.concat([head, PNG, Buffer.alloc(fileBytes - PNG.length), tail]);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: '/api/v1/assets',
      method: 'POST',
      headers: { ...auth, 'content-type': 'multipart/form-data; boundary=b', 'content-length': String(body.length) },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    // The server may close the connection before it has read the whole body: that is its right once it answered.
    req.on('error', (error) => reject(error));
    req.end(body);
  });
}

describe('HTTP uploads over the cap (node)', function () {
  this.timeout(60_000);
  let h: Harness;
  let logged: { level: string; message: string; fields: Record<string, unknown> }[];
  beforeEach(async () => {
    logged = [];
    h = await makeHarness('node', { maxUploadBytes: 1024 * 1024, log: (level, message, fields = {}) => logged.push({ level, message, fields }) });
  });
  afterEach(async () => {
    expect(h.unsettledUploads(), 'uploads left unsettled').to.equal(0);
    expect(leftovers(h.uploadDir)).to.deep.equal([]);
    await h.close();
  });

  it('answers 413 File too large to every one of 20 uploads three times the cap, and logs why', async () => {
    const u = await h.user();
    const statuses: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const answer = await sendWhole(h, u.auth, 3 * 1024 * 1024);
      statuses.push(`${answer.status} ${answer.body}`);
    }
    expect(new Set(statuses)).to.deep.equal(new Set(['413 {"success":false,"error":"Upload failed","reason":"File too large"}']));
    const why = logged.filter((l) => l.message === 'upload refused');
    expect(why.length).to.equal(20);
    expect(why[0]?.level).to.equal('info');
    expect(String(why[0]?.fields['reason'])).to.match(/too large/i);
  });
});

describe('decideUpload: one answer whatever order the parser and the store failed in', () => {
  const tooLarge = new CoreError('PAYLOAD_TOO_LARGE', 'File too large: the limit is 1048576 bytes');
  const aborted = Object.assign(new Error('The operation was aborted'), { code: 'ABORT_ERR' });
  const formidableTooLarge = Object.assign(new Error('options.maxTotalFileSize exceeded'), { code: 1009 });
  const premature = Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
  const refused = { success: false, error: 'Upload failed', reason: 'File too large' };

  it('answers 413 File too large when the store refused, even if the parser also gave up', () => {
    for (const parserError of [null, aborted, formidableTooLarge]) {
      const result = decideUpload({ parserError, store: { error: tooLarge } });
      expect([result.status, result.failure?.body], String(parserError)).to.deep.equal([413, refused]);
    }
  });

  it('answers 413 when the parser hit the size backstop and the store only saw its stream cut', () => {
    const result = decideUpload({ parserError: formidableTooLarge, store: { error: premature } });
    expect([result.status, result.failure?.body]).to.deep.equal([413, refused]);
  });
});
