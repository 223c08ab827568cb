/**
 * Streams bytes to one S3 object with a fixed, small amount of memory: the bytes are copied into
 * part buffers of a fixed size, at most `inFlight + 1` of them, taken from the store's kept
 * buffers (see PartBuffers); at most `inFlight` parts are being sent while the next one fills, and
 * a buffer is filled again as soon as its part is stored. So an upload of any size holds at most
 * `(inFlight + 1) × partBytes` of its bytes, makes no garbage per piece, and gives its buffers
 * back for the next upload when it succeeds. A body that fits in
 * one part is sent as one PutObject; a failed multipart upload is aborted (no parts are left).
 * @module
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { PartBuffers } from './part-buffers.js';

export interface BoundedUploadOptions {
  /** Where part buffers come from; their size is every part's but the last (S3 needs at least 5 MiB). */
  readonly buffers: PartBuffers;
  /** Parts sent at once. */
  readonly inFlight: number;
}

export async function uploadBounded(client: S3Client, bucket: string, key: string, source: AsyncIterable<Uint8Array>, options: BoundedUploadOptions): Promise<void> {
  const upload = new BoundedUpload(client, bucket, key, options);
  try {
    for await (const piece of source) await upload.write(piece);
    await upload.end();
    upload.giveBuffersBack();
  } catch (error) {
    await upload.abort();
    throw error;
  }
}

class BoundedUpload {
  private readonly free: Buffer[] = [];
  private taken = 0;
  private current: Buffer | null = null;
  private filled = 0;
  private uploadId: string | null = null;
  private nextPart = 1;
  private readonly parts: CompletedPart[] = [];
  private readonly sending = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly options: BoundedUploadOptions,
  ) {}

  async write(piece: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < piece.byteLength) {
      const part = this.current ?? (this.current = await this.takeBuffer());
      const n = Math.min(piece.byteLength - offset, part.length - this.filled);
      part.set(piece.subarray(offset, offset + n), this.filled);
      this.filled += n;
      offset += n;
      if (this.filled === part.length) await this.sendCurrent();
    }
  }

  async end(): Promise<void> {
    if (this.uploadId === null) {
      // Everything fit in one part: one request, no multipart upload.
      const body = this.current ? this.current.subarray(0, this.filled) : Buffer.alloc(0);
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: body, ContentLength: body.length }));
      return;
    }
    if (this.filled > 0) await this.sendCurrent();
    await Promise.all([...this.sending]);
    this.throwIfFailed();
    const parts = [...this.parts].sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
    await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId, MultipartUpload: { Parts: parts } }));
  }

  /** Once the upload succeeded: every buffer is free, no request reads it any more. */
  giveBuffersBack(): void {
    this.options.buffers.give(this.current ? [...this.free, this.current] : this.free);
    this.free.length = 0;
    this.current = null;
  }

  async abort(): Promise<void> {
    await Promise.allSettled([...this.sending]);
    if (this.uploadId === null) return;
    await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId })).catch(() => undefined);
  }

  /** Starts sending the full (or last) buffer as the next part; waits only for the upload's id. */
  private async sendCurrent(): Promise<void> {
    const buffer = this.current as Buffer;
    const length = this.filled;
    this.current = null;
    this.filled = 0;
    if (this.uploadId === null) {
      const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key }));
      if (!created.UploadId) throw new Error(`S3 gave no upload id for ${this.key}`);
      this.uploadId = created.UploadId;
    }
    const partNumber = this.nextPart;
    this.nextPart += 1;
    const sent = this.client
      .send(new UploadPartCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId, PartNumber: partNumber, Body: buffer.subarray(0, length), ContentLength: length }))
      .then(
        (answer) => void this.parts.push({ PartNumber: partNumber, ETag: answer.ETag }),
        (error: unknown) => void (this.failure ??= { error }),
      )
      .finally(() => {
        this.sending.delete(sent);
        this.free.push(buffer);
      });
    this.sending.add(sent);
  }

  /** A free part buffer: one of this upload's, another while it has fewer than it may, else once a part is stored. */
  private async takeBuffer(): Promise<Buffer> {
    for (;;) {
      this.throwIfFailed();
      const free = this.free.pop();
      if (free) return free;
      if (this.taken < this.options.inFlight + 1) {
        this.taken += 1;
        return this.options.buffers.take();
      }
      await Promise.race([...this.sending]);
    }
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}
