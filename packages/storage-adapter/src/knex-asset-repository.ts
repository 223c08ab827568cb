import type { Knex } from 'knex';
import type { Asset, AssetRepository } from '@runload/core';
import { toDate, toMs } from './columns.js';
import { guarded } from './storage-errors.js';

function toAsset(row: Record<string, unknown>): Asset {
  return {
    id: String(row['id']),
    accountId: String(row['account_id']),
    filename: String(row['filename']),
    contentType: String(row['content_type']),
    size: toMs(row['size']),
    sha256: String(row['sha256']),
    createdAt: toDate(row['created_at']),
  };
}

export class KnexAssetRepository implements AssetRepository {
  constructor(private readonly db: Knex) {}

  create(a: Asset): Promise<void> {
    return guarded(async () => {
      await this.db('assets').insert({
        id: a.id,
        account_id: a.accountId,
        filename: a.filename,
        content_type: a.contentType,
        size: a.size,
        sha256: a.sha256,
        created_at: a.createdAt.getTime(),
      });
    });
  }

  get(id: string): Promise<Asset | null> {
    return guarded(async () => {
      const row = await this.db('assets').where({ id }).first();
      return row ? toAsset(row) : null;
    });
  }

  delete(id: string): Promise<boolean> {
    return guarded(async () => (await this.db('assets').where({ id }).delete()) > 0);
  }

  countBySha256(sha256: string): Promise<number> {
    return guarded(async () => {
      const row = await this.db('assets').where({ sha256 }).count<{ n: number | string }[]>({ n: '*' }).first();
      return Number(row?.n ?? 0);
    });
  }
}
