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
        createdAt: now,
        origin: 'upload',
        expiresAt: expiryOf('upload', now, this.retention),
      };
      const { created } = await staged.commit();
      committed = true;
      try {
        await this.assets.create(asset);
      } catch (error) {
        // Undo the new blob unless another asset already shares these bytes.
        if (created && (await this.assets.countBySha256(staged.sha256).catch(() => 1)) === 0) {
          await this.blobs.delete(staged.sha256);
        }
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
    if ((await this.assets.countBySha256(asset.sha256)) === 0) await this.blobs.delete(asset.sha256);
  }
}
