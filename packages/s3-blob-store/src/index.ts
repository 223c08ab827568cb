export { S3BlobStore, createS3Client } from './s3-blob-store.js';
export { s3OptionsFromEnv, isS3BlobUrl, BlobUrlError, type S3BlobStoreOptions } from './blob-url.js';
export { s3BlobStoreFromEnv } from './s3-blob-store-factory.js';
