/**
 * Content-addressed files on local disk: `<root>/<aa>/<bb>/<sha256>`. Bytes are streamed to a
 * staging file inside the root (never the system temp folder) while hashed, synced, then linked
 * into place, so a reader never sees a partial file and identical bytes are stored once. A blob
 * smaller than one write batch (most of a run's outputs) waits in memory until its commit, which
 * writes it only when the store does not hold those bytes already.
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, readdirSync } from 'node:fs';
import { link, lstat, open, readdir, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Blake3Hasher } from '@napi-rs/blake-hash';
import { CoreError, type BlobStore, type ByteRange, type StagedBlob } from '@runload/core';
import { makeDirectory, makeDirectoryAsync } from './make-directory.js';

const HEAD_BYTES = 4100;
const STAGING = '.staging';
const SHA256 = /^[0-9a-f]{64}$/;

/** The size of one write to the staging file. */
const WRITE_BATCH_BYTES = 1024 * 1024;

export class LocalBlobStore implements BlobStore {
  private readonly staging: string;
  /** Staging files being removed after their commit (nobody waits for them: see `commit`). */
  private readonly removals = new Set<Promise<void>>();

  /**
   * @param root the blob directory. Building a store never touches what is staged there: the CLI
   * builds one while a server may be receiving uploads into the same directory.
   * @param openFile opens a staging file (tests pass one whose writes fail, as on a full disk).
   */
  constructor(
    private readonly root: string,
    private readonly openFile: (file: string, flags: string) => Promise<FileHandle> = open,
  ) {
    this.staging = path.join(root, STAGING);
    makeDirectory(this.staging);
  }

  /**
   * Removes staging entries a killed process left behind: those not written to for `idleMs`. An
   * upload in progress writes its staging file continuously, so a long idle time marks it dead.
   * The server calls this when it starts; a CLI command never does. Returns how many it removed.
   */
  async removeAbandonedStaging(idleMs: number): Promise<number> {
    const now = Date.now();
    let removed = 0;
    for (const name of await readdir(this.staging)) {
      const entry = path.join(this.staging, name);
      const info = await lstat(entry).catch(() => null);
      if (!info || now - info.mtimeMs < idleMs) continue;
      await rm(entry, { force: true, recursive: true });
      removed += 1;
    }
    return removed;
  }

  async stage(source: AsyncIterable<Uint8Array>, options: { maxBytes: number }): Promise<StagedBlob> {
    const tempPath = path.join(this.staging, randomUUID());
    // Opened once the bytes fill a first batch: a blob smaller than that (a run's output, as a
    // rule) stays in memory until its commit, which writes it only when the store lacks it.
    let file: FileHandle | null = null;
    const hash = createHash('sha256');
    const b3 = new Blake3Hasher();
    const head: Buffer[] = [];
    let headSize = 0;
    let size = 0;
    let staged = false;
    // Writes go out in batches of WRITE_BATCH_BYTES, one in flight while the next is read, so the
    // disk and the socket work side by side (a write per network chunk would leave both idle).
    let batch: Uint8Array[] = [];
    let batchSize = 0;
    let writing: Promise<unknown> = Promise.resolve();
    // A write fails (a full disk) while the next batch is being read: it is awaited only then, so
    // its failure is kept here at once, stops the read at its next chunk, and is rethrown.
    let writeFailure: { error: unknown } | null = null;
    const writeBatch = async () => {
      await writing;
      file ??= await this.openFile(tempPath, 'wx');
      const chunks = batch; // written as they are (writev), never copied into one buffer
      batch = [];
      batchSize = 0;
      if (chunks.length > 0) {
        writing = file.writev(chunks);
        writing.catch((error: unknown) => (writeFailure ??= { error }));
      }
    };
    try {
      for await (const chunk of source) {
        if (writeFailure) throw (writeFailure as { error: unknown }).error;
        size += chunk.byteLength;
        if (size > options.maxBytes) throw new CoreError('PAYLOAD_TOO_LARGE', `File too large: the limit is ${options.maxBytes} bytes`);
        hash.update(chunk);
        b3.update(chunk);
        if (headSize < HEAD_BYTES) {
          const part = Buffer.from(chunk.subarray(0, HEAD_BYTES - headSize));
          head.push(part);
          headSize += part.length;
        }
        batch.push(chunk);
        batchSize += chunk.byteLength;
        if (batchSize >= WRITE_BATCH_BYTES) await writeBatch();
      }
      if (file) {
        await writeBatch();
        await writing;
      }
      staged = true;
    } finally {
      if (!staged && file) {
        const opened: FileHandle = file;
        try {
          await writing.catch(() => undefined);
          await opened.close();
        } finally {
          await removeFile(tempPath);
        }
      }
    }
    const sha256 = hash.digest('hex');
    const described = { sha256, blake3: b3.digest('hex'), size, head: new Uint8Array(Buffer.concat(head)) };
    if (!file) return this.inMemory(described, tempPath, batch);
    // The bytes reach the disk while the caller writes the record (which needs only the hash);
    // `commit` waits for them before the blob gets its name.
    const opened: FileHandle = file;
    const synced = opened.sync().finally(() => opened.close());
    synced.catch(() => undefined); // awaited by commit or discard
    return {
      ...described,
      ...settledOnce(
        async () => {
          await synced.catch(async (error: unknown) => {
            this.removeInBackground(tempPath);
            throw error;
          });
          return this.name(tempPath, sha256);
        },
        async () => {
          await synced.catch(() => undefined);
          await removeFile(tempPath);
        },
      ),
    };
  }

  /**
   * A blob small enough to be held in memory until its commit. Bytes the store already holds (a
   * run that made the same output again) are not written at all; others are written, synced
   * and named as a streamed blob is.
   */
  private inMemory(described: Omit<StagedBlob, 'commit' | 'discard'>, tempPath: string, chunks: readonly Uint8Array[]): StagedBlob {
    return {
      ...described,
      ...settledOnce(
        async () => {
          if (await stat(this.pathOf(described.sha256)).then(() => true, () => false)) return { created: false };
          const file = await this.openFile(tempPath, 'wx');
          try {
            await file.writev([...chunks]);
            await file.sync();
          } catch (error) {
            await file.close().catch(() => undefined);
            await removeFile(tempPath);
            throw error;
          }
          await file.close();
          return this.name(tempPath, described.sha256);
        },
        // Nothing was written: the bytes are dropped with the blob.
        async () => undefined,
      ),
    };
  }

  /** Gives the synced staging file at `tempPath` its content name (created: false when it had it already). */
  private async name(tempPath: string, sha256: string): Promise<{ created: boolean }> {
    const target = this.pathOf(sha256);
    try {
      // link() fails when the name exists, so of two identical uploads committed at once exactly
      // one reports created, and a reader never sees a partial file. Its directory is made only
      // when missing (most are there already: one call less per blob).
      const linkOnce = (missingDirectory: 'retry' | 'fail') =>
        link(tempPath, target).then(
          () => 'created' as const,
          (error: NodeJS.ErrnoException) => {
            if (error.code === 'EEXIST') return 'exists' as const;
            if (error.code === 'ENOENT' && missingDirectory === 'retry') return 'no-directory' as const;
            throw error;
          },
        );
      let outcome = await linkOnce('retry');
      if (outcome === 'no-directory') {
        await makeDirectoryAsync(path.dirname(target));
        outcome = await linkOnce('fail');
      }
      const created = outcome === 'created';
      if (created) await syncDirectory(path.dirname(target));
      return { created };
    } finally {
      // The bytes have their name (or had it already): the staging name is only litter now, so
      // the caller does not wait for its removal. A process that dies first leaves it to
      // `removeAbandonedStaging`.
      this.removeInBackground(tempPath);
    }
  }

  async open(sha256: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | null> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    const target = this.pathOf(sha256);
    if (!(await stat(target).catch(() => null))) return null;
    return createReadStream(target, range ? { start: range.start, end: range.end } : {});
  }

  async blake3Of(sha256: string): Promise<string | null> {
    const bytes = await this.open(sha256);
    if (!bytes) return null;
    const b3 = new Blake3Hasher();
    for await (const chunk of bytes) b3.update(chunk as Uint8Array);
    return b3.digest('hex');
  }

  async size(sha256: string): Promise<number | null> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    return (await stat(this.pathOf(sha256)).catch(() => null))?.size ?? null;
  }

  async delete(sha256: string): Promise<boolean> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return false;
    const target = this.pathOf(sha256);
    if (!(await stat(target).catch(() => null))) return false;
    await rm(target, { force: true });
    return true;
  }

  async *list(): AsyncIterable<string> {
    for (const a of await readdir(this.root).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{2}$/.test(a)) continue;
      for (const b of await readdir(path.join(this.root, a)).catch(() => [] as string[])) {
        if (!/^[0-9a-f]{2}$/.test(b)) continue;
        for (const name of await readdir(path.join(this.root, a, b)).catch(() => [] as string[])) {
          if (SHA256.test(name)) yield name;
        }
      }
    }
  }

  /** Staging files present once the removals under way are done (tests check that none is left). */
  async stagedFiles(): Promise<string[]> {
    await Promise.allSettled([...this.removals]);
    return readdirSync(this.staging);
  }

  private removeInBackground(file: string): void {
    const removal = removeFile(file).catch(() => undefined);
    this.removals.add(removal);
    void removal.finally(() => this.removals.delete(removal));
  }

  private pathOf(sha256: string): string {
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }
}

/** Removes a file if it is there: one call, where `rm` first asks what the path is. */
async function removeFile(file: string): Promise<void> {
  await unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/** Makes a new directory entry durable (the file's own bytes were synced when staged). */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A staged blob's commit and discard: whichever comes first takes effect, once; the other does nothing. */
function settledOnce(commit: () => Promise<{ created: boolean }>, discard: () => Promise<void>): Pick<StagedBlob, 'commit' | 'discard'> {
  let settled = false;
  return {
    commit: async () => {
      if (settled) return { created: false };
      settled = true;
      return commit();
    },
    discard: async () => {
      if (settled) return;
      settled = true;
      await discard();
    },
  };
}
