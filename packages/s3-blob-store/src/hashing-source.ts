/**
 * Passes a byte stream through while hashing it, counting it, keeping its first bytes and
 * refusing it past a cap: what the S3 store streams to the object store.
 * @module
 */
import { createHash } from 'node:crypto';
import { Blake3Hasher } from '@napi-rs/blake-hash';
import { CoreError } from '@runload/core';

const HEAD_BYTES = 4100;

export class HashingSource {
  private readonly hash = createHash('sha256');
  private readonly headParts: Buffer[] = [];
  private headSize = 0;
  size = 0;
  /** The error the source itself threw (the uploader may wrap it; the caller rethrows this one). */
  sourceError: unknown = undefined;

  /** Fed in the same pass as the SHA-256: the Comfy API v2 names content by its BLAKE3. */
  private readonly b3 = new Blake3Hasher();

  constructor(
    private readonly source: AsyncIterable<Uint8Array>,
    private readonly maxBytes: number,
  ) {}

  async *chunks(): AsyncGenerator<Uint8Array> {
    const iterator = this.source[Symbol.asyncIterator]();
    let ended = false;
    try {
      for (;;) {
        let next: IteratorResult<Uint8Array>;
        try {
          next = await iterator.next();
        } catch (error) {
          this.sourceError = error;
          throw error;
        }
        if (next.done) {
          ended = true;
          return;
        }
        const chunk = next.value;
        this.size += chunk.byteLength;
        if (this.size > this.maxBytes) {
          this.sourceError = new CoreError('PAYLOAD_TOO_LARGE', `File too large: the limit is ${this.maxBytes} bytes`);
          throw this.sourceError;
        }
        this.hash.update(chunk);
        this.b3.update(chunk);
        if (this.headSize < HEAD_BYTES) {
          const part = Buffer.from(chunk.subarray(0, HEAD_BYTES - this.headSize));
          this.headParts.push(part);
          this.headSize += part.length;
        }
        yield chunk;
      }
    } finally {
      // Stops the source at once (a refused or abandoned upload must not be read to its end).
      if (!ended) await iterator.return?.();
    }
  }

  sha256(): string {
    return this.hash.digest('hex');
  }

  blake3(): string {
    return this.b3.digest('hex');
  }

  head(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.headParts));
  }
}
