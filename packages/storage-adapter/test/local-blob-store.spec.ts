import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CoreError } from '@runload/core';
import { describeBlobStoreContract } from '@runload/core/contract-tests';
import { LocalBlobStore } from '@runload/storage-adapter';

async function* oneChunk(bytes: Buffer): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** Committed blob files, relative to the root (the staging directory left out). */
function blobFiles(root: string): string[] {
  return (readdirSync(root, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((d) => d.isFile() && !path.relative(root, d.parentPath).startsWith('.staging'))
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)));
}

function tempRoot(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'runload-blobs-'));
}

describeBlobStoreContract('local disk', async () => {
  const root = tempRoot();
  const subject = new LocalBlobStore(root);
  return {
    subject,
    teardown: async () => {
      expect(await subject.stagedFiles(), 'nothing left in staging').to.deep.equal([]);
      rmSync(root, { recursive: true, force: true });
    },
  };
});

describe('LocalBlobStore on disk', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('leaves no staging file after an over-cap stream or a failing source', async () => {
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
    expect(await store.stagedFiles()).to.deep.equal([]);
    expect(readdirSync(root)).to.deep.equal(['.staging']);
  });

  it('stores identical bytes as one file, and of concurrent identical commits exactly one creates it', async () => {
    const store = new LocalBlobStore(root);
    const bytes = Buffer.alloc(50_000, 'x');
    const staged = await Promise.all(Array.from({ length: 6 }, () => store.stage(oneChunk(bytes), { maxBytes: 100_000 })));
    const results = await Promise.all(staged.map((s) => s.commit()));
    expect(results.filter((r) => r.created)).to.have.length(1);
    expect(blobFiles(root)).to.deep.equal([path.join(staged[0]?.sha256.slice(0, 2) ?? '', staged[0]?.sha256.slice(2, 4) ?? '', staged[0]?.sha256 ?? '')]);
    expect(await store.stagedFiles()).to.deep.equal([]);
    expect(readFileSync(path.join(root, blobFiles(root)[0] ?? '')).equals(bytes)).to.equal(true);
  });

  it('stages a blob larger than one write batch inside its own directory, never the system temp folder, until commit or discard', async () => {
    const store = new LocalBlobStore(root);
    const staged = await store.stage(oneChunk(Buffer.alloc(2 * 1024 * 1024, 'p')), { maxBytes: 4 * 1024 * 1024 });
    expect(await store.stagedFiles()).to.have.length(1);
    await staged.discard();
    expect(await store.stagedFiles()).to.deep.equal([]);
    expect(blobFiles(root)).to.deep.equal([]);
  });

  it('holds a small blob in memory until its commit, and writes nothing for bytes it already stores', async () => {
    const opened: string[] = [];
    const store = new LocalBlobStore(root, (file, flags) => {
      opened.push(file);
      return open(file, flags);
    });
    const bytes = Buffer.from('a small output');
    const first = await store.stage(oneChunk(bytes), { maxBytes: 100 });
    expect(await store.stagedFiles(), 'nothing on disk before the commit').to.deep.equal([]);
    expect(await first.commit()).to.deep.equal({ created: true });
    expect(opened).to.have.length(1);
    expect(readFileSync(path.join(root, blobFiles(root)[0] ?? '')).equals(bytes)).to.equal(true);

    const again = await store.stage(oneChunk(bytes), { maxBytes: 100 });
    expect(await again.commit()).to.deep.equal({ created: false });
    expect(opened, 'no file opened for bytes already stored').to.have.length(1);
    const discarded = await store.stage(oneChunk(Buffer.from('never committed')), { maxBytes: 100 });
    await discarded.discard();
    expect(await store.stagedFiles()).to.deep.equal([]);
    expect(blobFiles(root)).to.have.length(1);
  });

  it('streams: staging 128 MiB holds no copy of the bytes in memory', async () => {
    const store = new LocalBlobStore(root);
    const chunk = Buffer.alloc(1024 * 1024, 1);
    async function* sameChunk(): AsyncIterable<Uint8Array> {
      for (let i = 0; i < 128; i += 1) yield chunk;
    }
    const before = process.memoryUsage().arrayBuffers;
    const staged = await store.stage(sameChunk(), { maxBytes: 200 * 1024 * 1024 });
    const grown = process.memoryUsage().arrayBuffers - before;
    await staged.discard();
    expect(staged.size).to.equal(128 * 1024 * 1024);
    expect(grown, `${grown} bytes of buffers held after staging`).to.be.below(32 * 1024 * 1024);
  });

  it('keeps an upload in progress when another store is built on the same directory (what every CLI command does)', async () => {
    const server = new LocalBlobStore(root);
    // Larger than one write batch, so it is staged on disk (a smaller one waits in memory).
    const uploading = Buffer.alloc(2 * 1024 * 1024, 'u');
    const staged = await server.stage(oneChunk(uploading), { maxBytes: 4 * 1024 * 1024 });
    const cli = new LocalBlobStore(root);
    expect(await cli.stagedFiles()).to.have.length(1);
    expect(await staged.commit()).to.deep.equal({ created: true });
    expect((await readAll(await server.open(staged.sha256)))?.equals(uploading)).to.equal(true);
  });

  it('removes only staging entries left untouched for the given time', async () => {
    const store = new LocalBlobStore(root);
    const old = (Date.now() - 2 * 3600_000) / 1000;
    writeFileSync(path.join(root, '.staging', 'leftover'), 'partial');
    mkdirSync(path.join(root, '.staging', 'odd-directory'));
    utimesSync(path.join(root, '.staging', 'leftover'), old, old);
    utimesSync(path.join(root, '.staging', 'odd-directory'), old, old);
    const live = await store.stage(oneChunk(Buffer.alloc(2 * 1024 * 1024, 'l')), { maxBytes: 4 * 1024 * 1024 });
    expect(await store.removeAbandonedStaging(3600_000)).to.equal(2);
    expect(await store.stagedFiles()).to.have.length(1);
    expect(await live.commit()).to.deep.equal({ created: true });
  });
});

async function readAll(source: AsyncIterable<Uint8Array> | null): Promise<Buffer | null> {
  if (source === null) return null;
  const out: Buffer[] = [];
  for await (const c of source) out.push(Buffer.from(c));
  return Buffer.concat(out);
}
