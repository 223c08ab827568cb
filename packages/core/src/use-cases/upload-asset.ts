/**
 * Stores an uploaded file as an asset of the caller. The type is decided by the bytes; a
 * refused or failed upload leaves no file and no record behind.
 * @module
 */
import { mediaKindOf, sanitizeFilename, type Asset } from '../domain/asset.js';
import { CoreError } from '../domain/errors.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { MediaTypeDetector } from '../ports/media-type-detector.js';
import { DEFAULT_LIMITS, expiryOf, type RetentionConfig } from '../domain/limits.js';

export interface UploadAssetCommand {
  readonly accountId: string;
  /** The client's filename; sanitised before it is stored. */
  readonly filename: string | null;
  readonly content: AsyncIterable<Uint8Array>;
  readonly maxBytes: number;
}

export class UploadAsset {
  constructor(
    private readonly blobs: BlobStore,
    private readonly detector: MediaTypeDetector,
    private readonly assets: AssetRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly retention: RetentionConfig = DEFAULT_LIMITS.retention,
  ) {}

  /** @throws CoreError PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE; storage errors pass through */
  async execute(command: UploadAssetCommand): Promise<Asset> {
    const staged = await this.blobs.stage(command.content, { maxBytes: command.maxBytes });
    let committed = false;
    try {
      const contentType = staged.size === 0 ? null : await this.detector.detect(staged.head);
      if (contentType === null || mediaKindOf(contentType) === null) {
        throw new CoreError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported file type: upload an image, video or audio file');
      }
      const now = this.clock.now();
      const asset: Asset = {
        id: this.ids.uuid(),
        accountId: command.accountId,
        filename: sanitizeFilename(command.filename),
        contentType,
        size: staged.size,
        sha256: staged.sha256,
        blake3: staged.blake3,
        createdAt: now,
        origin: 'upload',
        expiresAt: expiryOf('upload', now, this.retention),
      };
      // The record first, then the bytes: the retention sweep removes bytes only while no record
      // refers to them, under a lock this write also takes (see SweepExpiredAssets). The record
      // stays hidden until the bytes are durable: a process killed in between leaves only a
      // pending record, which RemoveAbandonedAssets removes.
      await this.assets.createPending(asset);
      try {
        await staged.commit();
        committed = true;
        await this.assets.markStored(asset.id);
      } catch (error) {
        await this.remove(asset);
        throw error;
      }
      return asset;
    } finally {
      if (!committed) await staged.discard();
    }
  }

  /** Undoes a stored upload (the request turned out invalid afterwards): the record, and the bytes unless shared. */
  async remove(asset: Asset): Promise<void> {
    await this.assets.delete(asset.id);
    await this.assets.deleteBlobIfUnreferenced(asset.sha256, () => this.blobs.delete(asset.sha256));
  }
}
