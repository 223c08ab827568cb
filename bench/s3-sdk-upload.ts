/**
 * The baseline of the S3 upload benchmark: the AWS SDK alone (lib-storage, the same part size and
 * parts in flight as runload's store) streams a file to the S3 server. Prints the seconds it took.
 */
import { createReadStream } from 'node:fs';
import { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';

const [file, endpoint, bucket, key] = process.argv.slice(2) as [string, string, string, string];
const client = new S3Client({
  endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
const started = performance.now();
await new Upload({ client, params: { Bucket: bucket, Key: key, Body: createReadStream(file) }, partSize: 5 * 1024 * 1024, queueSize: 4 }).done();
process.stdout.write(`${((performance.now() - started) / 1000).toFixed(3)}\n`);
client.destroy();
