import { CoreError } from '../domain/errors.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Principal } from './principal.js';
import type { GetAsset } from './get-asset.js';

export class DeleteAsset {
  constructor(
    private readonly assets: AssetRepository,
    private readonly blobs: BlobStore,
    private readonly getAsset: GetAsset,
  ) {}

  /**
   * Deletes the caller's asset, and its bytes when no other asset shares them.
   * @throws CoreError ASSET_NOT_FOUND (also for another account's or an expired asset), ASSET_IN_USE while a run in flight uses it
   */
  async execute(principal: Principal, assetId: string): Promise<void> {
    const asset = await this.getAsset.execute(principal, assetId);
    if (await this.assets.usedByRunInFlight(asset)) {
      throw new CoreError('ASSET_IN_USE', `Asset ${assetId} is an input of a run still queued or running; cancel it or wait for it to finish`);
    }
    if (!(await this.assets.delete(asset.id))) throw new CoreError('ASSET_NOT_FOUND', `Asset ${assetId} not found`);
    await this.assets.deleteBlobIfUnreferenced(asset.sha256, () => this.blobs.delete(asset.sha256));
  }
}
