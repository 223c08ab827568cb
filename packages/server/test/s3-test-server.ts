/**
 * A real S3-protocol server for the tests: s3rver (npm) in this process, on 127.0.0.1 port 0,
 * keeping objects in a temporary directory, with one bucket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface TestS3Server {
  readonly endpoint: string;
  readonly bucket: string;
  /** Where s3rver keeps the objects on disk (tests look at the stored bytes there too). */
  readonly directory: string;
  /** The variables a runload process needs to use this server. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * The AWS SDK prints, once per process on Node 20, that its releases after January 2027 will need
 * Node 22. It runs on Node 20 (its engines say so) and the README states the notice; the test
 * output leaves it out, here and in the servers the tests start.
 */
const QUIET_SDK = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

export async function startTestS3Server(bucket = 'runload-test'): Promise<TestS3Server> {
  Object.assign(process.env, QUIET_SDK);
  const directory = mkdtempSync(path.join(os.tmpdir(), 'runload-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    directory,
    env: {
      RUNLOAD_S3_ENDPOINT: endpoint,
      RUNLOAD_S3_REGION: 'us-east-1',
      RUNLOAD_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      ...QUIET_SDK,
    },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
