/** An upload that meets a full disk is a storage failure (500), not a bad request, and leaves nothing behind. */
import { expect } from 'chai';
import { leftovers, makeHarness, PNG, TRANSPORTS, type Harness } from './harness.js';

function form(filename: string, body: Buffer): FormData {
  const f = new FormData();
  f.append('file', new Blob([body]), filename);
  return f;
}

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
}

for (const transport of TRANSPORTS) {
  describe(`HTTP uploads on a full disk (${transport})`, function () {
    this.timeout(30_000);
    let h: Harness;
    let diskFull = true;
    beforeEach(async () => {
      h = await makeHarness(transport, { maxUploadBytes: 4 * 1024 * 1024 });
      diskFull = true;
      const stage = h.ports.blobs.stage.bind(h.ports.blobs);
      // The store reads part of the body, then its write fails as a full disk's does.
      h.ports.blobs.stage = async (source, options) => {
        if (!diskFull) return stage(source, options);
        let read = 0;
        for await (const chunk of source) {
          read += chunk.byteLength;
          if (read > 64 * 1024) throw enospc();
        }
        throw enospc();
      };
    });
    afterEach(async () => {
      expect(leftovers(h.uploadDir), 'files in the upload directory').to.deep.equal([]);
      await h.close();
    });

    it('answers 500 Upload failed, lists no asset, keeps serving reads, and stores the file once space returns', async () => {
      const u = await h.user();
      const bytes = Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]);
      const failed = await h.request('/api/v1/assets', { method: 'POST', headers: u.auth, body: form('big.png', bytes) });
      expect(failed.status).to.equal(500);
      expect(await failed.json()).to.deep.equal({ success: false, error: 'Upload failed' });

      const listed = await h.request('/api/v1/assets', { headers: u.auth });
      expect(listed.status).to.equal(200);
      expect(((await listed.json()) as { assets: unknown[] }).assets).to.deep.equal([]);

      diskFull = false;
      const stored = await h.request('/api/v1/assets', { method: 'POST', headers: u.auth, body: form('big.png', bytes) });
      expect(stored.status).to.equal(201);
      const asset = (await stored.json()) as { asset_id: string; size: number };
      expect(asset.size).to.equal(bytes.length);
      const content = await h.request(`/api/v1/assets/${asset.asset_id}/content`, { headers: u.auth });
      expect(content.status).to.equal(200);
      expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).to.equal(true);
    });
  });
}
