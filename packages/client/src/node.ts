/**
 * Node additions to the client: upload a file by its path. Kept apart from the main entry so
 * that the main entry stays free of Node modules for browsers.
 * @module
 */
import { openAsBlob } from 'node:fs';
import path from 'node:path';
import type { Asset } from '@runload/api-schema';
import type { RunloadClient, UploadSource } from './client.js';

/** Uploads the file at `filePath`, read from disk as it is sent (never whole in memory). */
export async function uploadFile(client: RunloadClient, filePath: string, options: { filename?: string; idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<Asset> {
  const blob = await openAsBlob(filePath);
  return client.uploadAsset(blob, options.filename ?? path.basename(filePath), {
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** A Blob, a web stream, or a path on disk. */
export async function uploadAsset(client: RunloadClient, source: UploadSource | string, filename?: string): Promise<Asset> {
  return typeof source === 'string' ? uploadFile(client, source, filename ? { filename } : {}) : client.uploadAsset(source, filename);
}

export * from './index.js';
