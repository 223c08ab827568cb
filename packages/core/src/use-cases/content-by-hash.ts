/**
 * Content named by its BLAKE3 (`blake3:<hex>`), the Comfy API v2's dedup: whether the caller
 * has such bytes, and a new asset over them without sending them again. Only the caller's own
 * bytes are found, so a hash is never a key to another account's content.
 * @module
 */
import { sanitizeFilename, type Asset } from '../domain/asset.js';
import { CoreError } from '../domain/errors.js';
import { DEFAULT_LIMITS, expiryOf, type RetentionConfig } from '../domain/limits.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { Principal } from './principal.js';

const BLAKE3_NAME = /^blake3:([0-9a-fA-F]{64})$/;

/** The hex digest of a `blake3:<hex>` name, lower-case; null for anything else. */
export function blake3OfName(name: string): string | null {
  return BLAKE3_NAME.exec(name)?.[1]?.toLowerCase() ?? null;
}

/** How a hex BLAKE3 is written in the v2: `blake3:<hex>`. */
export function blake3Name(hex: string): string {
  return `blake3:${hex}`;
}

export class ContentByHash {
  constructor(
    private readonly assets: AssetRepository,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly retention: RetentionConfig = DEFAULT_LIMITS.retention,
  ) {}

  /** The caller's newest live asset of these bytes, or null (a malformed name included). */
  async find(principal: Principal, name: string): Promise<Asset | null> {
    const hex = blake3OfName(name);
    if (hex === null) return null;
    return this.assets.findByBlake3(principal.account.id, hex, this.clock.now());
  }

  /**
   * A new upload of the caller over bytes it already has, named `filePath` (else as the asset
   * found). @throws CoreError BLOB_NOT_FOUND when the caller has no such bytes
   */
  async mint(principal: Principal, name: string, filePath: string | null): Promise<Asset> {
    const found = await this.find(principal, name);
    const notFound = () => new CoreError('BLOB_NOT_FOUND', `No content of yours has the hash ${name}`);
    if (!found) throw notFound();
    const now = this.clock.now();
    const asset: Asset = {
      ...found,
      id: this.ids.uuid(),
      filename: filePath === null ? found.filename : sanitizeFilename(filePath),
      createdAt: now,
      origin: 'upload',
      expiresAt: expiryOf('upload', now, this.retention),
    };
    // The record takes the lock of its bytes; the retention sweep may have removed them just before.
    await this.assets.create(asset);
    if ((await this.blobs.size(asset.sha256)) === null) {
      await this.assets.delete(asset.id);
      throw notFound();
    }
    return asset;
  }

  /** Whether no other asset shares these bytes (the upload stored them anew). */
  async isOnlyCopy(asset: Asset): Promise<boolean> {
    return (await this.assets.countBySha256(asset.sha256)) <= 1;
  }
}
