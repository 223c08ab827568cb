import { isExpired, type Asset } from '../domain/asset.js';
import type { Clock } from '../ports/clock.js';
import { CoreError } from '../domain/errors.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore, ByteRange } from '../ports/blob-store.js';
import type { Principal } from './principal.js';

export interface AssetContent {
  readonly asset: Asset;
  readonly body: AsyncIterable<Uint8Array>;
  /** The range served, or null for the whole file. */
  readonly range: ByteRange | null;
}

export class GetAsset {
  constructor(
    private readonly assets: AssetRepository,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
  ) {}

  /** The caller's unexpired asset. @throws CoreError ASSET_NOT_FOUND (also for another account's asset, or an expired one) */
  async execute(principal: Principal, assetId: string): Promise<Asset> {
    const asset = await this.assets.get(assetId);
    if (!asset || asset.accountId !== principal.account.id || isExpired(asset, this.clock.now())) throw new CoreError('ASSET_NOT_FOUND', `Asset ${assetId} not found`);
    return asset;
  }

  /**
   * The asset's bytes, or the given range of them (clamped to the file; a range that starts
   * past the end is refused).
   * @throws CoreError ASSET_NOT_FOUND, RANGE_NOT_SATISFIABLE
   */
  async content(principal: Principal, assetId: string, range: ByteRange | null): Promise<AssetContent> {
    const asset = await this.execute(principal, assetId);
    let served: ByteRange | null = null;
    if (range) {
      if (range.start >= asset.size || range.start > range.end) {
        throw new CoreError('RANGE_NOT_SATISFIABLE', `Range not satisfiable: the file has ${asset.size} bytes`, { details: { size: asset.size } });
      }
      served = { start: range.start, end: Math.min(range.end, asset.size - 1) };
    }
    const body = await this.blobs.open(asset.sha256, served ?? undefined);
    if (!body) throw new CoreError('INTERNAL_ERROR', `The bytes of asset ${assetId} are missing from the blob store`);
    return { asset, body, range: served };
  }
}
