import { createHash } from 'node:crypto';
import type { IHasher } from 'hash-wasm';
import { CoreError } from '../domain/errors.js';
import type { BlobStore, ByteRange, StagedBlob } from '../ports/blob-store.js';

const HEAD_BYTES = 4100;

/**
 * A BLAKE3 hasher from hash-wasm, loaded when bytes are first stored: hash-wasm is an optional
 * peer, so an embedding that stores no bytes in memory runs without it.
 */
async function blake3Hasher(): Promise<IHasher> {
  let hashWasm: typeof import('hash-wasm');
  try {
    hashWasm = await import('hash-wasm');
  } catch (error) {
    throw new Error('The in-memory blob store needs the hash-wasm package to store bytes: install it (npm install hash-wasm)', { cause: error });
  }
  return hashWasm.createBLAKE3();
}

/** Blobs in memory, keyed by SHA-256. For tests and embedding with small files. */
export class InMemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<string, Buffer>();
  /** Bytes staged and neither committed nor discarded (a test checks nothing is left behind). */
  stagedCount = 0;

  async stage(source: AsyncIterable<Uint8Array>, options: { maxBytes: number }): Promise<StagedBlob> {
    const hash = createHash('sha256');
    const b3 = await blake3Hasher();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > options.maxBytes) throw new CoreError('PAYLOAD_TOO_LARGE', `File too large: the limit is ${options.maxBytes} bytes`);
      hash.update(chunk);
      b3.update(chunk);
      chunks.push(Buffer.from(chunk));
    }
    const bytes = Buffer.concat(chunks);
    const sha256 = hash.digest('hex');
    let open = true;
    this.stagedCount += 1;
    const close = () => {
      if (open) this.stagedCount -= 1;
      open = false;
    };
    return {
      sha256,
      blake3: b3.digest('hex'),
      size,
      head: new Uint8Array(bytes.subarray(0, HEAD_BYTES)),
      commit: async () => {
        close();
        const created = !this.blobs.has(sha256);
        if (created) this.blobs.set(sha256, bytes);
        return { created };
      },
      discard: async () => close(),
    };
  }

  async open(sha256: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | null> {
    const bytes = this.blobs.get(sha256);
    if (!bytes) return null;
    const slice = range ? bytes.subarray(range.start, range.end + 1) : bytes;
    return (async function* () {
      yield slice;
    })();
  }

  async blake3Of(sha256: string): Promise<string | null> {
    const bytes = this.blobs.get(sha256);
    if (!bytes) return null;
    const b3 = await blake3Hasher();
    return b3.update(bytes).digest('hex');
  }

  async size(sha256: string): Promise<number | null> {
    return this.blobs.get(sha256)?.length ?? null;
  }

  async delete(sha256: string): Promise<boolean> {
    return this.blobs.delete(sha256);
  }

  async *list(): AsyncIterable<string> {
    yield* [...this.blobs.keys()];
  }

  /** Staged bytes die with the process here: nothing can be left behind. */
  async removeAbandonedStaging(): Promise<number> {
    return 0;
  }
}
