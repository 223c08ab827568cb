/**
 * Where bytes live, as a module: an S3-compatible bucket when `RUNLOAD_BLOB_URL` says so (its
 * client destroyed at teardown), else the data directory's `blobs/` (the storage adapter's module).
 * The S3 module lives here because the S3 package has no container of its own. The AWS SDK is
 * imported only when a bucket is configured: it adds about 7 MiB to every other instance's memory at rest.
 * @module
 */
import path from 'node:path';
import { ContainerModule } from 'inversify';
import { BLOB_STORE, TEARDOWN, type BlobStore, type Teardown } from '@runload/core';
import type { S3BlobStoreOptions } from '@runload/s3-blob-store/blob-url';
import { localBlobStoreModule } from '@runload/storage-adapter/module';
import type { RunloadConfig } from './config.js';

function s3BlobStoreModule(options: S3BlobStoreOptions): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<BlobStore>(BLOB_STORE)
      .toResolvedValue(async (teardown: Teardown) => {
        const { createS3Client, S3BlobStore } = await import('@runload/s3-blob-store');
        const client = createS3Client(options);
        teardown.add('s3 client', () => client.destroy());
        return new S3BlobStore(client, options);
      }, [TEARDOWN])
      .inSingletonScope();
  });
}

export function blobStoreModule(config: Pick<RunloadConfig, 's3Blobs' | 'dataDir'>): ContainerModule {
  return config.s3Blobs ? s3BlobStoreModule(config.s3Blobs) : localBlobStoreModule(path.join(config.dataDir, 'blobs'));
}
