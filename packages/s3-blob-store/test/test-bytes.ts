/** Bytes into a store as a request body brings them, and back out of the test bucket. */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** `bytes` as a stream of pieces of `size` bytes (the last one shorter). */
export async function* inChunks(bytes: Buffer, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** The whole object stored under `key`. */
export async function objectBytes(client: S3Client, bucket: string, key: string): Promise<Buffer> {
  const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
}
