/**
 * Content-addressed blobs in an S3-compatible bucket: `PREFIX/sha256/ab/cd/<sha256>`. Bytes
 * stream to a temporary key (multipart past one part) while hashed and counted, then are
 * copied, inside the store, to their content key; nothing passes through memory whole or
 * through local disk.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Blake3Hasher } from '@napi-rs/blake-hash';
import type { BlobStore, ByteRange, StagedBlob } from '@runload/core';
import type { S3BlobStoreOptions } from './blob-url.js';
import { HashingSource } from './hashing-source.js';
import { uploadBounded } from './bounded-multipart-upload.js';
import { PartBuffers } from './part-buffers.js';

/**
 * Size of one multipart part (S3's smallest), and parts sent at once: an upload buffers at most
 * one more part than that, 20 MiB, whatever its size. The store keeps one upload's worth of
 * buffers between uploads.
 */
const PART_BYTES = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 3;
const SHA256 = /^[0-9a-f]{64}$/;

export function createS3Client(options: S3BlobStoreOptions): S3Client {
  return new S3Client({
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // Recent SDKs otherwise send streamed bodies as aws-chunked with trailing checksums, which
    // several S3-compatible servers store verbatim (the bytes read back are not the bytes sent).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export class S3BlobStore implements BlobStore {
  private readonly bucket: string;
  private readonly root: string;
  private readonly partBuffers = new PartBuffers(PART_BYTES, PARTS_IN_FLIGHT + 1);

  constructor(private readonly client: S3Client, options: Pick<S3BlobStoreOptions, 'bucket' | 'prefix'>) {
    this.bucket = options.bucket;
    this.root = options.prefix ? `${options.prefix}/` : '';
  }

  async stage(source: AsyncIterable<Uint8Array>, options: { maxBytes: number }): Promise<StagedBlob> {
    const tempKey = `${this.root}staging/${randomUUID()}`;
    const hashing = new HashingSource(source, options.maxBytes);
    try {
      await uploadBounded(this.client, this.bucket, tempKey, hashing.chunks(), { buffers: this.partBuffers, inFlight: PARTS_IN_FLIGHT });
    } catch (error) {
      await this.deleteKey(tempKey).catch(() => undefined);
      throw hashing.sourceError ?? error;
    }
    const sha256 = hashing.sha256();
    let settled = false;
    return {
      sha256,
      blake3: hashing.blake3(),
      size: hashing.size,
      head: hashing.head(),
      commit: async () => {
        if (settled) return { created: false };
        settled = true;
        try {
          const key = this.keyOf(sha256);
          // Identical bytes have one key: two commits racing both copy the same bytes to it, and the
          // store still holds one object for that content.
          if ((await this.sizeOfKey(key)) !== null) return { created: false };
          await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: key, CopySource: encodeCopySource(this.bucket, tempKey) }));
          return { created: true };
        } finally {
          await this.deleteKey(tempKey);
        }
      },
      discard: async () => {
        if (settled) return;
        settled = true;
        await this.deleteKey(tempKey);
      },
    };
  }

  async open(sha256: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | null> {
    if (!SHA256.test(sha256)) return null;
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(sha256), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async blake3Of(sha256: string): Promise<string | null> {
    const bytes = await this.open(sha256);
    if (!bytes) return null;
    const b3 = new Blake3Hasher();
    for await (const chunk of bytes) b3.update(chunk);
    return b3.digest('hex');
  }

  async size(sha256: string): Promise<number | null> {
    return SHA256.test(sha256) ? this.sizeOfKey(this.keyOf(sha256)) : null;
  }

  async delete(sha256: string): Promise<boolean> {
    if (!SHA256.test(sha256)) return false;
    const key = this.keyOf(sha256);
    if ((await this.sizeOfKey(key)) === null) return false;
    await this.deleteKey(key);
    return true;
  }

  async removeAbandonedStaging(idleMs: number): Promise<number> {
    const before = Date.now() - idleMs;
    const prefix = `${this.root}staging/`;
    let removed = 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (!object.Key || (object.LastModified?.getTime() ?? 0) > before) continue;
        await this.deleteKey(object.Key);
        removed += 1;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    // Multipart uploads a killed process never completed keep their parts (and their cost) until aborted.
    const uploads = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: prefix })).catch(() => null);
    for (const u of uploads?.Uploads ?? []) {
      if (!u.Key || !u.UploadId || (u.Initiated?.getTime() ?? 0) > before) continue;
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: u.Key, UploadId: u.UploadId }));
      removed += 1;
    }
    return removed;
  }

  async *list(): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${this.root}sha256/`, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        const name = object.Key?.split('/').pop() ?? '';
        if (SHA256.test(name) && object.Key === this.keyOf(name)) yield name;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** The object key of a blob (exposed for tests that check what the bucket holds). */
  keyOf(sha256: string): string {
    return `${this.root}sha256/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
  }

  private async sizeOfKey(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  private async deleteKey(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

function encodeCopySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}
