/** Where bytes live: an S3-compatible bucket when `RUNLOAD_BLOB_URL` says so, else the data directory. */
import path from 'node:path';
import type { BlobStore } from '@runload/core';
import { createS3Client, S3BlobStore } from '@runload/s3-blob-store';
import { LocalBlobStore } from '@runload/storage-adapter';
import type { RunloadConfig } from './config.js';

export function blobStoreFor(config: Pick<RunloadConfig, 's3Blobs' | 'dataDir'>): BlobStore {
  if (config.s3Blobs) return new S3BlobStore(createS3Client(config.s3Blobs), config.s3Blobs);
  return new LocalBlobStore(path.join(config.dataDir, 'blobs'));
}
