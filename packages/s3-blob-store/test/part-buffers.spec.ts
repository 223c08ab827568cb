/**
 * Part buffers kept from one upload to the next: what each upload stores is still exactly its own
 * bytes (a reused buffer holds the last upload's bytes past the new fill), a successful upload
 * gives its buffers back for the next, a failed one gives none back (a request may still hold
 * them), and kept buffers no upload takes are dropped after a while.
 */
import { expect } from 'chai';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { createS3Client, s3OptionsFromEnv, S3BlobStore } from '@runload/s3-blob-store';
import { uploadBounded } from '../src/bounded-multipart-upload.js';
import { PartBuffers } from '../src/part-buffers.js';
import { startTestS3Server, type TestS3Server } from './s3-test-server.js';
import { inChunks, objectBytes } from './test-bytes.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

describe('S3 part buffers kept between uploads', function () {
  this.timeout(60_000);
  let server: TestS3Server;
  let client: S3Client;
  before(async () => {
    server = await startTestS3Server();
    client = createS3Client(s3OptionsFromEnv(`s3://${server.bucket}/parts`, server.env));
  });
  after(async () => {
    client.destroy();
    await server.close();
  });

  it('stores each upload exactly when uploads one after another reuse the same buffers', async () => {
    const options = s3OptionsFromEnv(`s3://${server.bucket}/reuse-${randomUUID()}`, server.env);
    const store = new S3BlobStore(client, options);
    // Longest first: every later upload fills reused buffers only part way, and ends in a short part.
    for (const size of [17 * MiB + 321, 7 * MiB + 5, 1 * MiB + 77, 0]) {
      const bytes = randomBytes(size);
      const staged = await store.stage(inChunks(bytes, 65_536), { maxBytes: size });
      expect(staged.sha256).to.equal(createHash('sha256').update(bytes).digest('hex'));
      await staged.commit();
      expect((await objectBytes(client, server.bucket, store.keyOf(staged.sha256))).equals(bytes), `${size} bytes read back`).to.equal(true);
    }
  });

  it('gives the buffers of a successful upload back, and takes them again for the next one', async () => {
    const buffers = new PartBuffers(PART, 4);
    await uploadBounded(client, server.bucket, `given-${randomUUID()}`, inChunks(randomBytes(18 * MiB), 65_536), { buffers, inFlight: 3 });
    expect([buffers.idleCount, buffers.madeCount]).to.deep.equal([4, 4]);
    const bytes = randomBytes(6 * MiB);
    const key = `taken-${randomUUID()}`;
    await uploadBounded(client, server.bucket, key, inChunks(bytes, 65_536), { buffers, inFlight: 3 });
    // Two parts, two buffers taken again and given back: none allocated beyond the four kept.
    expect([buffers.idleCount, buffers.madeCount]).to.deep.equal([4, 4]);
    expect((await objectBytes(client, server.bucket, key)).equals(bytes)).to.equal(true);
  });

  it('keeps no more idle buffers than it was told, whatever the uploads at once took', async () => {
    const buffers = new PartBuffers(PART, 4);
    await Promise.all(
      [0, 1, 2].map((i) => uploadBounded(client, server.bucket, `together-${i}-${randomUUID()}`, inChunks(randomBytes(16 * MiB), 65_536), { buffers, inFlight: 3 })),
    );
    expect(buffers.idleCount).to.equal(4);
  });

  it('drops the kept buffers once no upload has given any back for its idle time', async () => {
    const buffers = new PartBuffers(PART, 4, 50);
    await uploadBounded(client, server.bucket, `idle-${randomUUID()}`, inChunks(randomBytes(6 * MiB), 65_536), { buffers, inFlight: 3 });
    expect(buffers.idleCount).to.equal(2);
    const deadline = Date.now() + 5_000;
    while (buffers.idleCount > 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    expect(buffers.idleCount, 'buffers still kept 5 s after the last upload').to.equal(0);
    // The next upload allocates again, and works.
    const key = `after-idle-${randomUUID()}`;
    const bytes = randomBytes(1 * MiB);
    await uploadBounded(client, server.bucket, key, inChunks(bytes, 65_536), { buffers, inFlight: 3 });
    expect(buffers.madeCount).to.equal(3);
    expect((await objectBytes(client, server.bucket, key)).equals(bytes)).to.equal(true);
  });

  it('gives back nothing from an upload that failed', async () => {
    const buffers = new PartBuffers(PART, 4);
    async function* broken(): AsyncIterable<Uint8Array> {
      yield randomBytes(12 * MiB);
      throw new Error('client went away');
    }
    let failure: unknown = null;
    await uploadBounded(client, server.bucket, `broken-${randomUUID()}`, broken(), { buffers, inFlight: 3 }).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error).with.property('message', 'client went away');
    expect(buffers.idleCount).to.equal(0);
  });
});
