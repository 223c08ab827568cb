/** POST /assets and downloads: the documented upload errors, over a real listening server. */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { leftovers, makeHarness, PNG, TRANSPORTS, type Harness } from './harness.js';
import { waitFor } from '@runload/core/testing';

function form(parts: { name: string; filename?: string; body: Buffer | string }[]): FormData {
  const f = new FormData();
  for (const p of parts) {
    if (p.filename !== undefined) f.append(p.name, new Blob([p.body]), p.filename);
    else f.append(p.name, String(p.body));
  }
  return f;
}

for (const transport of TRANSPORTS) {
  describe(`HTTP uploads (${transport})`, function () {
    this.timeout(30_000);
    let h: Harness;
    let u: Awaited<ReturnType<Harness['user']>>;
    beforeEach(async () => {
      h = await makeHarness(transport, { maxUploadBytes: 64 * 1024 });
      u = await h.user();
    });
    afterEach(async () => {
      // Whatever happened, no upload may still be reading or staged, and formidable wrote nothing of its own.
      expect(h.unsettledUploads(), 'uploads left unsettled').to.equal(0);
      expect(leftovers(h.uploadDir), 'files in the upload directory').to.deep.equal([]);
      await h.close();
    });

    const upload = (body: FormData | string, headers: Record<string, string> = {}) =>
      h.request('/api/v1/assets', { method: 'POST', headers: { ...u.auth, ...headers }, body });

    it('stores an image by its bytes, sanitises a path-traversal filename, and serves it back', async () => {
      const res = await upload(form([{ name: 'file', filename: '../../etc/passwd.png', body: PNG }]));
      expect(res.status).to.equal(201);
      const asset = (await res.json()) as Record<string, unknown>;
      expect(asset).to.include({ filename: 'passwd.png', content_type: 'image/png', size: PNG.length });
      expect(asset['sha256']).to.match(/^[0-9a-f]{64}$/);
      expect(Object.keys(asset)).to.deep.equal(['asset_id', 'filename', 'content_type', 'size', 'sha256', 'created_at', 'expires_at']);
      const meta = await h.request(`/api/v1/assets/${asset['asset_id']}`, { headers: u.auth });
      expect(await meta.json()).to.deep.equal(asset);
      const content = await h.request(`/api/v1/assets/${asset['asset_id']}/content`, { headers: u.auth });
      expect(content.status).to.equal(200);
      expect(content.headers.get('content-type')).to.equal('image/png');
      expect(content.headers.get('content-length')).to.equal(String(PNG.length));
      expect(Buffer.from(await content.arrayBuffer()).equals(PNG)).to.equal(true);
      const part = await h.request(`/api/v1/assets/${asset['asset_id']}/content`, { headers: { ...u.auth, range: 'bytes=1-3' } });
      expect(part.status).to.equal(206);
      expect(part.headers.get('content-range')).to.equal(`bytes 1-3/${PNG.length}`);
      expect(Buffer.from(await part.arrayBuffer()).toString('latin1')).to.equal('PNG');
      const past = await h.request(`/api/v1/assets/${asset['asset_id']}/content`, { headers: { ...u.auth, range: 'bytes=9999-' } });
      expect(past.status).to.equal(416);
      expect(past.headers.get('content-range')).to.equal(`bytes */${PNG.length}`);
      expect(await past.json()).to.deep.equal({
        error: { code: 'RANGE_NOT_SATISFIABLE', message: `Range not satisfiable: the file has ${PNG.length} bytes`, details: { size: PNG.length } },
      });
      const tail = await h.request(`/api/v1/assets/${asset['asset_id']}/content`, { headers: { ...u.auth, range: 'bytes=-4' } });
      expect(tail.status).to.equal(206);
      expect(tail.headers.get('content-range')).to.equal(`bytes ${PNG.length - 4}-${PNG.length - 1}/${PNG.length}`);
      expect(Buffer.from(await tail.arrayBuffer()).equals(PNG.subarray(PNG.length - 4))).to.equal(true);
    });

    it('answers 400 No file uploaded without a file part', async () => {
      const res = await upload(form([{ name: 'note', body: 'hello' }]));
      expect(res.status).to.equal(400);
      expect(await res.json()).to.deep.equal({ error: 'No file uploaded' });
    });

    it('refuses two files, a text file renamed .png, an empty file and an over-cap file, leaving nothing', async () => {
      const two = await upload(form([{ name: 'file', filename: 'a.png', body: PNG }, { name: 'file', filename: 'b.png', body: PNG }]));
      expect(two.status).to.equal(400);
      expect(await two.json()).to.deep.equal({ success: false, error: 'Upload failed', reason: 'One file per request' });
      const text = await upload(form([{ name: 'file', filename: 'fake.png', body: 'just some text, not an image' }]));
      expect(text.status).to.equal(415);
      expect(await text.json()).to.deep.equal({ success: false, error: 'Upload failed', reason: 'Unsupported file type' });
      const empty = await upload(form([{ name: 'file', filename: 'empty.png', body: '' }]));
      expect(empty.status).to.equal(415);
      const big = await upload(form([{ name: 'file', filename: 'big.png', body: Buffer.concat([PNG, Buffer.alloc(200 * 1024)]) }]));
      expect(big.status).to.equal(413);
      expect(await big.json()).to.deep.equal({ success: false, error: 'Upload failed', reason: 'File too large' });
      expect(h.ports.blobs.stagedCount).to.equal(0);
      expect(await h.ports.assets.countBySha256(createHash('sha256').update(PNG).digest('hex')), 'no record of the refused pair').to.equal(0);
      const list = await h.request('/api/v1/account', { headers: u.auth });
      expect(list.status).to.equal(200);
    });

    it('answers 400 No file uploaded to a request that is not multipart, with or without a body', async () => {
      for (const [body, headers] of [['just text', { 'content-type': 'text/plain' }], ['{"file":"x"}', { 'content-type': 'application/json' }], [undefined, {}]] as const) {
        const res = await h.request('/api/v1/assets', { method: 'POST', headers: { ...u.auth, ...headers }, ...(body !== undefined ? { body } : {}) });
        expect(res.status, String(body)).to.equal(400);
        expect(await res.json()).to.deep.equal({ error: 'No file uploaded' });
      }
      expect(h.ports.blobs.stagedCount).to.equal(0);
    });

    it('answers 400 Upload failed for a multipart body that is malformed or has no boundary', async () => {
      const unbounded = await upload('--xyz--\r\n', { 'content-type': 'multipart/form-data' });
      expect(unbounded.status).to.equal(400);
      expect(await unbounded.json()).to.deep.equal({ success: false, error: 'Upload failed' });
      const broken = await upload('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n\x89PNG', {
        'content-type': 'multipart/form-data; boundary=xyz',
      });
      expect(broken.status).to.equal(400);
      expect(await broken.json()).to.deep.equal({ success: false, error: 'Upload failed' });
    });

    it('answers One file per request when the second file part comes under another name', async () => {
      const res = await upload(form([{ name: 'file', filename: 'a.png', body: PNG }, { name: 'extra', filename: 'b.png', body: PNG }]));
      expect(res.status).to.equal(400);
      expect(await res.json()).to.deep.equal({ success: false, error: 'Upload failed', reason: 'One file per request' });
      const list = await h.ports.assets.countBySha256(createHash('sha256').update(PNG).digest('hex'));
      expect(list).to.equal(0);
    });

    if (transport === 'node') {
      it('refuses an over-cap upload before the client has sent it all, and closes the connection', async () => {
        const url = new URL(h.url as string);
        const total = 64 * 1024 * 1024;
        let sent = 0;
        const answer = await new Promise<{ status: number; connection: string | undefined; body: string; sent: number }>((resolve, reject) => {
          const req = http.request({
            host: url.hostname,
            port: url.port,
            path: '/api/v1/assets',
            method: 'POST',
            headers: { ...u.auth, 'content-type': 'multipart/form-data; boundary=b', 'content-length': String(total) },
          });
          req.on('response', (res) => {
            const seenAt = sent;
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body, sent: seenAt }));
          });
          req.on('error', (error) => (sent < total ? undefined : reject(error)));
          req.write(`--b\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
          req.write(PNG);
          const chunk = Buffer.alloc(64 * 1024);
          const pump = (): void => {
            if (req.destroyed || sent >= total - 1024 * 1024) return;
            sent += chunk.length;
            if (req.write(chunk)) setImmediate(pump);
            else req.once('drain', pump);
          };
          pump();
        });
        expect(answer.status).to.equal(413);
        expect(JSON.parse(answer.body)).to.deep.equal({ success: false, error: 'Upload failed', reason: 'File too large' });
        expect(answer.connection).to.equal('close');
        expect(answer.sent, 'bytes the client had sent when the answer came').to.be.below(total / 2);
        await waitFor(() => h.unsettledUploads() === 0, 'the refused upload to be settled');
        const ok = await upload(form([{ name: 'file', filename: 'ok.png', body: PNG }]));
        expect(ok.status).to.equal(201);
      });

      it('survives a client that aborts mid-upload and leaves no file or record behind', async () => {
        const url = new URL((await h.request('/healthz')).url);
        const req = http.request({
          host: url.hostname,
          port: url.port,
          path: '/api/v1/assets',
          method: 'POST',
          headers: { ...u.auth, 'content-type': 'multipart/form-data; boundary=b', 'content-length': '100000' },
        });
        req.on('error', () => undefined);
        req.write(`--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
        req.write(Buffer.concat([PNG, Buffer.alloc(5000)]));
        // Cut only once the server is storing the file, so the cleanup below has something to clean.
        await waitFor(() => h.unsettledUploads() > 0, 'the server to begin storing the upload');
        req.destroy();
        await waitFor(() => h.unsettledUploads() === 0, 'the cut upload to be settled');
        expect(await h.ports.assets.countBySha256(createHash('sha256').update(Buffer.concat([PNG, Buffer.alloc(5000)])).digest('hex'))).to.equal(0);
        const ok = await upload(form([{ name: 'file', filename: 'ok.png', body: PNG }]));
        expect(ok.status).to.equal(201);
      });
    }
  });
}
