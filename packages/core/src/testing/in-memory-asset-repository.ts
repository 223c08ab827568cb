import type { Asset } from '../domain/asset.js';
import type { AssetRepository } from '../ports/asset-repository.js';

export class InMemoryAssetRepository implements AssetRepository {
  private readonly rows = new Map<string, Asset>();

  async create(asset: Asset): Promise<void> {
    if (this.rows.has(asset.id)) throw new Error(`asset ${asset.id} already exists`);
    this.rows.set(asset.id, structuredClone(asset));
  }

  async get(id: string): Promise<Asset | null> {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }

  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  async countBySha256(sha256: string): Promise<number> {
    let n = 0;
    for (const row of this.rows.values()) if (row.sha256 === sha256) n += 1;
    return n;
  }
}
