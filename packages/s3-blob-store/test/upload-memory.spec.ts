/**
 * What an upload to S3 costs in memory: a 64 MiB and a 256 MiB upload, each staged in a process
 * of its own against the S3 test server (in this process), must add less than 64 MiB to that
 * process's peak memory, and about as little for the larger one: what is buffered is bounded by
 * the part size and the parts in flight, not by the upload's size.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestS3Server, type TestS3Server } from './s3-test-server.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'upload-memory-child.ts');
const BOUND_MIB = 64;

interface Measure {
  size: number;
  growthMiB: number;
}

describe('S3BlobStore memory while uploading', function () {
  this.timeout(240_000);
  let server: TestS3Server;
  before(async () => (server = await startTestS3Server()));
  after(async () => server.close());

  async function measure(mib: number): Promise<Measure> {
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=@runload/source', '--import', 'tsx', CHILD, `s3://${server.bucket}/memory`, String(mib)], {
      env: { ...process.env, ...server.env },
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) as string) as Measure;
  }

  for (const mib of [64, 256]) {
    it(`grows peak memory by less than ${BOUND_MIB} MiB for a ${mib} MiB upload`, async () => {
      const { size, growthMiB } = await measure(mib);
      expect(size).to.equal(mib * 1024 * 1024);
      expect(growthMiB, `peak memory grew ${growthMiB.toFixed(1)} MiB`).to.be.below(BOUND_MIB);
    });
  }
});
