/** The contract of BlobStore: content-addressed, staged then committed or discarded. Every adapter runs it. */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { CoreError } from '../domain/errors.js';
import type { BlobStore } from '../ports/blob-store.js';

async function* chunks(...parts: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield p;
}

async function readAll(source: AsyncIterable<Uint8Array> | null): Promise<Buffer | null> {
  if (source === null) return null;
  const out: Buffer[] = [];
  for await (const c of source) out.push(Buffer.from(c));
  return Buffer.concat(out);
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export function describeBlobStoreContract(name: string, setup: () => Promise<{ subject: BlobStore; teardown?: () => Promise<void> }>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let blobs: BlobStore;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      blobs = made.subject;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    it('computes the BLAKE3 of the bytes in the same pass, and again from a committed blob', async () => {
      // The reference vector of BLAKE3 for "abc", sent in two chunks.
      const staged = await blobs.stage(chunks(Buffer.from('a'), Buffer.from('bc')), { maxBytes: 10 });
      expect(staged.blake3).to.equal('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
      expect(await blobs.blake3Of(staged.sha256), 'nothing committed yet').to.equal(null);
      await staged.commit();
      expect(await blobs.blake3Of(staged.sha256)).to.equal(staged.blake3);
      await blobs.delete(staged.sha256);
    });

    it('stages many chunks with the right hash, size and first 4100 bytes, invisible until committed', async () => {
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      const parts = Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, i) => bytes.subarray(i * 65_536, (i + 1) * 65_536));
      const staged = await blobs.stage(chunks(...parts), { maxBytes: bytes.length });
      expect(staged.sha256).to.equal(sha(bytes));
      expect(staged.size).to.equal(bytes.length);
      expect(Buffer.from(staged.head).equals(bytes.subarray(0, 4100))).to.equal(true);
      expect(await blobs.open(staged.sha256)).to.equal(null);
      expect(await blobs.size(staged.sha256)).to.equal(null);
      expect(await staged.commit()).to.deep.equal({ created: true });
      expect((await readAll(await blobs.open(staged.sha256)))?.equals(bytes)).to.equal(true);
      expect(await blobs.size(staged.sha256)).to.equal(bytes.length);
    });

    it('gives the whole file as head when it is shorter than 4100 bytes, and handles an empty file', async () => {
      const small = await blobs.stage(chunks(Buffer.from('ab'), Buffer.from('cd')), { maxBytes: 10 });
      expect(Buffer.from(small.head).toString()).to.equal('abcd');
      await small.discard();
      const empty = await blobs.stage(chunks(), { maxBytes: 10 });
      expect([empty.size, empty.sha256, empty.head.length]).to.deep.equal([0, sha(new Uint8Array()), 0]);
      await empty.discard();
    });

    it('serves inclusive byte ranges', async () => {
      const staged = await blobs.stage(chunks(Buffer.from('0123456789')), { maxBytes: 100 });
      await staged.commit();
      expect((await readAll(await blobs.open(staged.sha256, { start: 0, end: 0 })))?.toString()).to.equal('0');
      expect((await readAll(await blobs.open(staged.sha256, { start: 3, end: 6 })))?.toString()).to.equal('3456');
      expect((await readAll(await blobs.open(staged.sha256, { start: 7, end: 9 })))?.toString()).to.equal('789');
    });

    it('stores identical bytes once: the second commit reports created false and the bytes stay readable', async () => {
      const a = await blobs.stage(chunks(Buffer.from('same bytes')), { maxBytes: 100 });
      const b = await blobs.stage(chunks(Buffer.from('same '), Buffer.from('bytes')), { maxBytes: 100 });
      expect(b.sha256).to.equal(a.sha256);
      expect(await a.commit()).to.deep.equal({ created: true });
      expect(await b.commit()).to.deep.equal({ created: false });
      expect((await readAll(await blobs.open(a.sha256)))?.toString()).to.equal('same bytes');
    });

    it('accepts exactly maxBytes and refuses one byte more with PAYLOAD_TOO_LARGE', async () => {
      const exact = await blobs.stage(chunks(Buffer.alloc(60), Buffer.alloc(40)), { maxBytes: 100 });
      expect(exact.size).to.equal(100);
      await exact.discard();
      const error = await blobs.stage(chunks(Buffer.alloc(60), Buffer.alloc(41)), { maxBytes: 100 }).then(() => null, (e: unknown) => e);
      expect(CoreError.hasCode(error, 'PAYLOAD_TOO_LARGE'), String(error)).to.equal(true);
    });

    it('stops reading the source as soon as the cap is passed, and closes it', async () => {
      let pulled = 0;
      let closed = false;
      async function* endless(): AsyncIterable<Uint8Array> {
        try {
          for (;;) {
            pulled += 1;
            yield Buffer.alloc(1000);
          }
        } finally {
          closed = true;
        }
      }
      const error = await blobs.stage(endless(), { maxBytes: 2500 }).then(() => null, (e: unknown) => e);
      expect(CoreError.hasCode(error, 'PAYLOAD_TOO_LARGE')).to.equal(true);
      expect(pulled).to.equal(3);
      expect(closed).to.equal(true);
    });

    it('rethrows the error of a failing source and stores nothing', async () => {
      async function* broken(): AsyncIterable<Uint8Array> {
        yield Buffer.from('part');
        throw new Error('client went away');
      }
      const error = await blobs.stage(broken(), { maxBytes: 100 }).then(() => null, (e: unknown) => e);
      expect((error as Error | null)?.message).to.equal('client went away');
      expect(await blobs.size(sha(Buffer.from('part')))).to.equal(null);
    });

    it('discards staged bytes (twice is fine) and ignores a discard after commit', async () => {
      const gone = await blobs.stage(chunks(Buffer.from('gone')), { maxBytes: 100 });
      await gone.discard();
      await gone.discard();
      expect(await blobs.open(gone.sha256)).to.equal(null);
      const kept = await blobs.stage(chunks(Buffer.from('kept')), { maxBytes: 100 });
      await kept.commit();
      await kept.discard();
      expect((await readAll(await blobs.open(kept.sha256)))?.toString()).to.equal('kept');
    });

    it('lists every committed blob once, and nothing staged or deleted', async () => {
      const kept = await blobs.stage(chunks(Buffer.from('listed one')), { maxBytes: 100 });
      await kept.commit();
      const other = await blobs.stage(chunks(Buffer.from('listed two')), { maxBytes: 100 });
      await other.commit();
      const gone = await blobs.stage(chunks(Buffer.from('listed, then deleted')), { maxBytes: 100 });
      await gone.commit();
      await blobs.delete(gone.sha256);
      const pending = await blobs.stage(chunks(Buffer.from('only staged')), { maxBytes: 100 });
      const listed: string[] = [];
      for await (const sha of blobs.list()) listed.push(sha);
      await pending.discard();
      expect(listed.sort()).to.deep.equal([kept.sha256, other.sha256].sort());
    });

    it('deletes a committed blob once, and answers null for unknown or malformed hashes', async () => {
      const kept = await blobs.stage(chunks(Buffer.from('kept')), { maxBytes: 100 });
      await kept.commit();
      expect(await blobs.delete(kept.sha256)).to.equal(true);
      expect(await blobs.delete(kept.sha256)).to.equal(false);
      expect(await blobs.open(kept.sha256)).to.equal(null);
      expect(await blobs.size(kept.sha256)).to.equal(null);
      for (const bad of ['../../etc/passwd', '', 'A'.repeat(64), '.staging']) {
        expect(await blobs.open(bad), bad).to.equal(null);
        expect(await blobs.size(bad), bad).to.equal(null);
        expect(await blobs.delete(bad), bad).to.equal(false);
      }
    });
  });
}
