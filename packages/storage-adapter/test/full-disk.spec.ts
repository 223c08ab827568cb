/**
 * A full disk while bytes are staged: the write fails with ENOSPC while the next batch is still
 * being read from a slow client. The stage must fail with that error (never as an unhandled
 * rejection that ends the process), leave no staging file, and work again once space returns.
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalBlobStore } from '@runload/storage-adapter';

/** A disk with `free` bytes left: a write past them fails with ENOSPC, as writev does. */
function smallDisk(initialFree: number) {
  let failed: () => void = () => undefined;
  const disk = { free: initialFree, failed: new Promise<void>((resolve) => (failed = resolve)) };
  const openFile = async (file: string, flags: string): Promise<FileHandle> => {
    const handle = await open(file, flags);
    const writev = handle.writev.bind(handle);
    handle.writev = (async (buffers: NodeJS.ArrayBufferView[]) => {
      const bytes = buffers.reduce((n, b) => n + b.byteLength, 0);
      if (bytes > disk.free) {
        failed();
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
      }
      disk.free -= bytes;
      return writev(buffers);
    }) as FileHandle['writev'];
    return handle;
  };
  return { disk, openFile };
}

describe('LocalBlobStore on a full disk', () => {
  let root: string;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'runload-full-disk-'));
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
    rmSync(root, { recursive: true, force: true });
  });

  it('fails the stage with ENOSPC when a write fails while the client is slow, leaving no file, then stores once space returns', async () => {
    const { disk, openFile } = smallDisk(6 * 1024 * 1024);
    const store = new LocalBlobStore(root, openFile);
    let sent = 0;
    // A client sending 20 MiB slowly: after the 7th MiB it waits until the write has failed and
    // the event loop has turned, which is when the old code let the rejection go unhandled.
    async function* slowClient(): AsyncIterable<Uint8Array> {
      for (let i = 0; i < 20; i += 1) {
        if (i === 8) {
          await disk.failed;
          await new Promise((resolve) => setImmediate(resolve));
        }
        sent += 1;
        yield Buffer.alloc(1024 * 1024, i);
      }
    }
    const error = await store.stage(slowClient(), { maxBytes: 64 * 1024 * 1024 }).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).to.equal('ENOSPC');
    expect(unhandled, 'unhandled rejections').to.deep.equal([]);
    expect(sent, 'the read stopped soon after the failure').to.be.below(20);
    expect(await store.stagedFiles()).to.deep.equal([]);
    expect(readdirSync(root)).to.deep.equal(['.staging']);

    disk.free = 64 * 1024 * 1024;
    async function* again(): AsyncIterable<Uint8Array> {
      for (let i = 0; i < 20; i += 1) yield Buffer.alloc(1024 * 1024, i);
    }
    const staged = await store.stage(again(), { maxBytes: 64 * 1024 * 1024 });
    expect(await staged.commit()).to.deep.equal({ created: true });
    expect(await store.size(staged.sha256)).to.equal(20 * 1024 * 1024);
  });
});
