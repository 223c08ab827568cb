/** Reads `RUNLOAD_BLOB_URL` and the `RUNLOAD_S3_*` variables into the options of an S3 blob store. */

export interface S3BlobStoreOptions {
  readonly bucket: string;
  /** Key prefix without leading or trailing slash; '' for the bucket's root. */
  readonly prefix: string;
  /** For S3-compatible servers that are not AWS (MinIO, Ceph, R2, a local test server). */
  readonly endpoint?: string;
  readonly region: string;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key`; most non-AWS servers need it. */
  readonly forcePathStyle: boolean;
  /** Omitted: the SDK's default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, roles). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

export class BlobUrlError extends Error {
  override readonly name = 'BlobUrlError';
}

/** True when `url` selects this store (`s3://…`). */
export function isS3BlobUrl(url: string): boolean {
  return url.startsWith('s3://');
}

/** @throws BlobUrlError when the URL or a variable is malformed */
export function s3OptionsFromEnv(url: string, env: Readonly<Record<string, string | undefined>>): S3BlobStoreOptions {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url.trim());
  if (!match) throw new BlobUrlError(`RUNLOAD_BLOB_URL must be s3://BUCKET or s3://BUCKET/PREFIX, got "${url}"`);
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  const endpoint = env['RUNLOAD_S3_ENDPOINT']?.trim() || undefined;
  if (endpoint && !/^https?:\/\/[^/]+/.test(endpoint)) throw new BlobUrlError(`RUNLOAD_S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  const pathStyleRaw = env['RUNLOAD_S3_FORCE_PATH_STYLE']?.trim().toLowerCase();
  if (pathStyleRaw && !['true', 'false', '1', '0'].includes(pathStyleRaw)) {
    throw new BlobUrlError(`RUNLOAD_S3_FORCE_PATH_STYLE must be true or false, got "${pathStyleRaw}"`);
  }
  const accessKeyId = env['AWS_ACCESS_KEY_ID']?.trim();
  const secretAccessKey = env['AWS_SECRET_ACCESS_KEY']?.trim();
  return {
    bucket: match[1] as string,
    prefix,
    ...(endpoint ? { endpoint } : {}),
    region: env['RUNLOAD_S3_REGION']?.trim() || env['AWS_REGION']?.trim() || 'us-east-1',
    // A custom endpoint is nearly always a server without virtual-host buckets, so path style is its default.
    forcePathStyle: pathStyleRaw ? pathStyleRaw === 'true' || pathStyleRaw === '1' : endpoint !== undefined,
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
  };
}
