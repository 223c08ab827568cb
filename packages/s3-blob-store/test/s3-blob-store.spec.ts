import { expect } from 'chai';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { describeBlobStoreContract } from '@runload/core/contract-tests';
import { s3BlobStoreFromEnv, s3OptionsFromEnv, S3BlobStore, createS3Client } from '@runload/s3-blob-store';
import { startTestS3Server, type TestS3Server } from './s3-test-server.js';
import { inChunks, objectBytes } from './test-bytes.js';

let server: TestS3Server;
before(async () => (server = await startTestS3Server()));
after(async () => server.close());

describeBlobStoreContract('S3 (s3rver)', async () => {
  const { store, close } = s3BlobStoreFromEnv(`s3://${server.bucket}/contract-${randomUUID()}`, server.env);
  return { subject: store, teardown: async () => close() };
});

async function keysUnder(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key ?? '').sort();
}

describe('S3BlobStore on an S3-protocol server', function () {
  this.timeout(60_000);
  let client: S3Client;
  let store: S3BlobStore;
  let prefix: string;
  beforeEach(() => {
    prefix = `p-${randomUUID()}`;
    const options = s3OptionsFromEnv(`s3://${server.bucket}/${prefix}`, server.env);
    client = createS3Client(options);
    store = new S3BlobStore(client, options);
  });
  afterEach(() => client.destroy());

  it('stores the exact bytes sent (multipart, no aws-chunked framing) under PREFIX/sha256/ab/cd/<sha256>, and nothing else', async () => {
    const bytes = randomBytes(20 * 1024 * 1024 + 123);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const staged = await store.stage(inChunks(bytes, 65_536), { maxBytes: bytes.length });
    await staged.commit();
    const key = `${prefix}/sha256/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`;
    expect(await keysUnder(client, server.bucket, prefix)).to.deep.equal([key]);
    expect((await objectBytes(client, server.bucket, key)).equals(bytes)).to.equal(true);
    // And on the server's own disk: the object file holds exactly the bytes, no chunk signatures.
    const onDisk = readFileSync(path.join(server.directory, server.bucket, `${key}._S3rver_object`));
    expect(onDisk.equals(bytes)).to.equal(true);
  });

  it('keeps one object per content under concurrent identical uploads, and leaves no temporary key', async () => {
    const bytes = randomBytes(100_000);
    const staged = await Promise.all(Array.from({ length: 5 }, () => store.stage(inChunks(bytes, 10_000), { maxBytes: 1e6 })));
    const results = await Promise.all(staged.map((s) => s.commit()));
    expect(results.some((r) => r.created)).to.equal(true);
    expect(await keysUnder(client, server.bucket, prefix)).to.deep.equal([store.keyOf(staged[0]?.sha256 ?? '')]);
  });

  it('leaves no temporary key after a refused or failed upload, nor after discard', async () => {
    await store.stage(inChunks(randomBytes(12 * 1024 * 1024), 1 << 20), { maxBytes: 10 * 1024 * 1024 }).catch(() => undefined);
    async function* broken(): AsyncIterable<Uint8Array> {
      yield randomBytes(9 * 1024 * 1024);
      throw new Error('client went away');
    }
    await store.stage(broken(), { maxBytes: 1e8 }).catch(() => undefined);
    const staged = await store.stage(inChunks(Buffer.from('discard me'), 4), { maxBytes: 100 });
    await staged.discard();
    expect(await keysUnder(client, server.bucket, prefix)).to.deep.equal([]);
  });

  it('removes staging keys idle longer than asked, and keeps fresh ones', async () => {
    await client.send(new PutObjectCommand({ Bucket: server.bucket, Key: `${prefix}/staging/left-behind`, Body: 'x' }));
    expect(await store.removeAbandonedStaging(3600_000)).to.equal(0);
    expect(await store.removeAbandonedStaging(0)).to.equal(1);
    expect(await keysUnder(client, server.bucket, prefix)).to.deep.equal([]);
  });

  it('reads its configuration from RUNLOAD_BLOB_URL and the RUNLOAD_S3_* variables', () => {
    expect(s3OptionsFromEnv('s3://bucket-a/some/prefix/', { RUNLOAD_S3_ENDPOINT: 'http://127.0.0.1:9000', AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' })).to.deep.equal({
      bucket: 'bucket-a',
      prefix: 'some/prefix',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    });
    expect(s3OptionsFromEnv('s3://bucket-a', { RUNLOAD_S3_REGION: 'eu-west-3', RUNLOAD_S3_FORCE_PATH_STYLE: 'false' })).to.deep.equal({
      bucket: 'bucket-a',
      prefix: '',
      region: 'eu-west-3',
      forcePathStyle: false,
    });
    expect(() => s3OptionsFromEnv('s3:/nope', {})).to.throw(/RUNLOAD_BLOB_URL/);
    expect(() => s3OptionsFromEnv('s3://b-1', { RUNLOAD_S3_FORCE_PATH_STYLE: 'maybe' })).to.throw(/RUNLOAD_S3_FORCE_PATH_STYLE/);
  });
});
