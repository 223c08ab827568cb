import type { Asset } from '../domain/asset.js';

export interface AssetRepository {
  /** Stores a new asset record. */
  create(asset: Asset): Promise<void>;
  /** The asset, or null when no asset has that id (whoever owns it). */
  get(id: string): Promise<Asset | null>;
  /** Removes the record; true when it existed. Used to undo a half-finished write. */
  delete(id: string): Promise<boolean>;
  /** How many asset records point at these bytes. */
  countBySha256(sha256: string): Promise<number>;
}

export const ASSET_REPOSITORY = Symbol.for('runload.core.AssetRepository');
