/** What the composition root calls: an S3 blob store from `RUNLOAD_BLOB_URL` and the `RUNLOAD_S3_*` variables. */
import { s3OptionsFromEnv } from './blob-url.js';
import { createS3Client, S3BlobStore } from './s3-blob-store.js';

export function s3BlobStoreFromEnv(url: string, env: Readonly<Record<string, string | undefined>>): { store: S3BlobStore; close(): void } {
  const options = s3OptionsFromEnv(url, env);
  const client = createS3Client(options);
  return { store: new S3BlobStore(client, options), close: () => client.destroy() };
}
