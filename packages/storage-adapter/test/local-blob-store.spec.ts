import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreError } from '@runload/core';
import { describeBlobStoreContract } from '@runload/core/testing';
import { LocalBlobStore } from '@runload/storage-adapter';

function tempRoot(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'runload-blobs-'));
}

describeBlobStoreContract('local disk', async () => {
  const root = tempRoot();
  return { store: new LocalBlobStore(root), teardown: async () => rmSync(root, { recursive: true, force: true }) };
});

describe('LocalBlobStore on disk', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('leaves no staging file after an over-cap stream or a failing source, and streams without buffering', async () => {
    const store = new LocalBlobStore(root);
    async function* big(): AsyncIterable<Uint8Array> {
      for (let i = 0; i < 100; i += 1) yield Buffer.alloc(1024 * 1024, i);
    }
    const error = await store.stage(big(), { maxBytes: 5 * 1024 * 1024 }).catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'PAYLOAD_TOO_LARGE')).to.equal(true);
    async function* broken(): AsyncIterable<Uint8Array> {
      yield Buffer.alloc(1000);
      throw new Error('aborted');
    }
    await store.stage(broken(), { maxBytes: 10_000 }).catch(() => undefined);
    expect(store.stagedFiles()).to.deep.equal([]);
    expect(readdirSync(root)).to.deep.equal(['.staging']);
  });

  it('removes staging files a killed process left behind when it starts', () => {
    new LocalBlobStore(root);
    writeFileSync(path.join(root, '.staging', 'leftover'), 'partial');
    const store = new LocalBlobStore(root);
    expect(store.stagedFiles()).to.deep.equal([]);
  });
});
