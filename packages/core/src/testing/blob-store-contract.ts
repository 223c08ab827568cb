/** The contract of BlobStore, run by the in-memory and the disk store. */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { CoreError } from '../domain/errors.js';
import type { BlobStore } from '../ports/blob-store.js';

export type BlobStoreSetup = () => Promise<{ store: BlobStore; teardown?: () => Promise<void> }>;

async function* chunks(...parts: Buffer[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield p;
}

async function readAll(source: AsyncIterable<Uint8Array> | null): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of source ?? []) out.push(Buffer.from(c));
  return Buffer.concat(out);
}

export function describeBlobStoreContract(name: string, setup: BlobStoreSetup): void {
  describe(`blob store contract: ${name}`, () => {
    let store: BlobStore;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      store = made.store;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    it('stages with the right hash, size and head, and serves the bytes and ranges once committed', async () => {
      const bytes = Buffer.alloc(10_000, 7);
      bytes.write('hello', 0);
      const staged = await store.stage(chunks(bytes.subarray(0, 3000), bytes.subarray(3000)), { maxBytes: 20_000 });
      expect(staged.sha256).to.equal(createHash('sha256').update(bytes).digest('hex'));
      expect(staged.size).to.equal(10_000);
      expect(Buffer.from(staged.head).equals(bytes.subarray(0, 4100))).to.equal(true);
      expect(await store.open(staged.sha256)).to.equal(null);
      expect(await staged.commit()).to.deep.equal({ created: true });
      expect((await readAll(await store.open(staged.sha256))).equals(bytes)).to.equal(true);
      expect((await readAll(await store.open(staged.sha256, { start: 1, end: 4 }))).toString()).to.equal('ello');
      expect(await store.size(staged.sha256)).to.equal(10_000);
    });

    it('stores identical bytes once', async () => {
      const a = await store.stage(chunks(Buffer.from('same')), { maxBytes: 100 });
      expect(await a.commit()).to.deep.equal({ created: true });
      const b = await store.stage(chunks(Buffer.from('same')), { maxBytes: 100 });
      expect(await b.commit()).to.deep.equal({ created: false });
    });

    it('refuses more than maxBytes with PAYLOAD_TOO_LARGE and a failing source with its error', async () => {
      const tooBig = await store.stage(chunks(Buffer.alloc(60), Buffer.alloc(60)), { maxBytes: 100 }).catch((e: unknown) => e);
      expect(CoreError.hasCode(tooBig, 'PAYLOAD_TOO_LARGE')).to.equal(true);
      async function* broken(): AsyncIterable<Uint8Array> {
        yield Buffer.from('part');
        throw new Error('client went away');
      }
      const failed = await store.stage(broken(), { maxBytes: 100 }).catch((e: Error) => e);
      expect((failed as Error).message).to.equal('client went away');
    });

    it('discards staged bytes and deletes committed ones', async () => {
      const staged = await store.stage(chunks(Buffer.from('gone')), { maxBytes: 100 });
      await staged.discard();
      await staged.discard();
      expect(await store.open(staged.sha256)).to.equal(null);
      const kept = await store.stage(chunks(Buffer.from('kept')), { maxBytes: 100 });
      await kept.commit();
      expect(await store.delete(kept.sha256)).to.equal(true);
      expect(await store.delete(kept.sha256)).to.equal(false);
      expect(await store.size(kept.sha256)).to.equal(null);
    });
  });
}
