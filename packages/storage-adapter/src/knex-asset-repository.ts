import type { Knex } from 'knex';
import { decodeRunCursor, encodeRunCursor, type Asset, type AssetListOptions, type AssetPage, type AssetRepository } from '@runload/core';
import { msOrNull, toDate, toDateOrNull, toMs } from './columns.js';
import { ACTIVE_STATUSES } from './run-statements.js';
import { dialectOf } from './open-database.js';
import { guarded } from './storage-errors.js';
import { insertAssetRows, markAssetsStored, selectAssets, type AssetRead } from './asset-statements.js';
import { TickBatch } from './tick-batch.js';

function toAsset(row: Record<string, unknown>): Asset {
  return {
    id: String(row['id']),
    accountId: String(row['account_id']),
    filename: String(row['filename']),
    contentType: String(row['content_type']),
    size: toMs(row['size']),
    sha256: String(row['sha256']),
    blake3: row['blake3'] === null || row['blake3'] === undefined ? null : String(row['blake3']),
    createdAt: toDate(row['created_at']),
    origin: row['origin'] === 'output' ? 'output' : 'upload',
    expiresAt: toDateOrNull(row['expires_at']),
  };
}

/**
 * Takes the lock of these bytes until the transaction ends: a write to their `blob_locks` row
 * (PostgreSQL locks that row; SQLite takes its database write lock).
 */
async function lockBytes(trx: Knex.Transaction, sha256: string): Promise<void> {
  await trx.raw('INSERT INTO blob_locks (sha256, touched_at) VALUES (?, ?) ON CONFLICT (sha256) DO UPDATE SET touched_at = excluded.touched_at', [sha256, Date.now()]);
}

/** Rows not expired at `nowMs`. */
function unexpired(query: Knex.QueryBuilder, nowMs: number): Knex.QueryBuilder {
  return query.where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', nowMs));
}

export class KnexAssetRepository implements AssetRepository {
  // A run's input reads, its outputs' records and their reveal, served a turn at a time.
  private readonly reads: TickBatch<AssetRead, Record<string, unknown> | null>;
  private readonly stored: TickBatch<string, boolean>;
  private readonly sqliteInserts: TickBatch<Record<string, unknown>, void>;

  constructor(private readonly db: Knex) {
    this.reads = new TickBatch((reads) => selectAssets(db, reads), { maxItems: 100 });
    this.stored = new TickBatch((ids) => markAssetsStored(db, ids), { maxItems: 100 });
    // A bad row (a duplicate id, say) fails only its own caller.
    this.sqliteInserts = new TickBatch((rows) => insertAssetRows(db, rows), { maxItems: 50, isolateFailures: true });
  }

  create(a: Asset): Promise<void> {
    return this.insert(a, false);
  }

  private insert(a: Asset, pending: boolean): Promise<void> {
    const row = {
      pending,
      id: a.id,
      account_id: a.accountId,
      filename: a.filename,
      content_type: a.contentType,
      size: a.size,
      sha256: a.sha256,
      blake3: a.blake3,
      created_at: a.createdAt.getTime(),
      origin: a.origin,
      expires_at: msOrNull(a.expiresAt),
    };
    // On SQLite the insert is the lock: it waits for the database's one writer, which a deletion
    // of these bytes is until it commits. One statement instead of a transaction of four.
    if (dialectOf(this.db) === 'sqlite') return guarded(() => this.sqliteInserts.add(row));
    return guarded(() =>
      this.db.transaction(async (trx) => {
        await lockBytes(trx, a.sha256);
        await trx('assets').insert(row);
      }),
    );
  }

  listExpired(now: Date, limit: number): Promise<Asset[]> {
    return guarded(async () => {
      const rows = await this.db('assets').where({ pending: false }).whereNotNull('expires_at').where('expires_at', '<=', now.getTime()).orderBy('expires_at').limit(limit);
      return rows.map(toAsset);
    });
  }

  deleteBlobIfUnreferenced(sha256: string, remove: () => Promise<unknown>): Promise<boolean> {
    return guarded(() =>
      this.db.transaction(async (trx) => {
        await lockBytes(trx, sha256);
        const row = await trx('assets').where({ sha256 }).first('id');
        if (row !== undefined) return false;
        // Removed while the lock is held: a new record of these bytes waits for this transaction.
        await remove();
        await trx('blob_locks').where({ sha256 }).delete();
        return true;
      }),
    );
  }

  get(id: string, options: { readonly includePending?: boolean } = {}): Promise<Asset | null> {
    return guarded(async () => {
      const row = await this.reads.add({ id, includePending: options.includePending ?? false });
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

  listByAccount(accountId: string, options: AssetListOptions): Promise<AssetPage> {
    return guarded(async () => {
      const query = unexpired(this.db('assets').where({ account_id: accountId, pending: false }), options.now.getTime());
      if (options.kind) query.where('content_type', 'like', `${options.kind}/%`);
      if (options.origin) query.where({ origin: options.origin });
      if (options.after) {
        const c = decodeRunCursor(options.after);
        query.where('created_at', '<=', c.createdAtMs).where((q) => q.where('created_at', '<', c.createdAtMs).orWhere('id', '<', c.id));
      }
      const rows = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(options.limit + 1);
      const assets = rows.slice(0, options.limit).map(toAsset);
      const last = assets[assets.length - 1];
      return { assets, nextCursor: rows.length > options.limit && last ? encodeRunCursor(last) : null };
    });
  }

  renewUploads(ids: readonly string[], expiresAt: Date | null, now: Date): Promise<number> {
    return guarded(async () => {
      if (ids.length === 0) return 0;
      const query = this.db('assets').whereIn('id', [...new Set(ids)]).where({ origin: 'upload', pending: false });
      return unexpired(query, now.getTime()).update({ expires_at: msOrNull(expiresAt) });
    });
  }

  usedByRunInFlight(asset: Asset): Promise<boolean> {
    return guarded(async () => {
      // Inputs are JSON text: an asset id (a UUID) appears there quoted only as a value that names it.
      const row = await this.db('runs')
        .where({ account_id: asset.accountId })
        .whereIn('status', [...ACTIVE_STATUSES])
        .where('inputs', 'like', `%"${asset.id}"%`)
        .first('id');
      return row !== undefined;
    });
  }

  createPending(a: Asset): Promise<void> {
    return this.insert(a, true);
  }

  markStored(id: string): Promise<boolean> {
    return guarded(() => this.stored.add(id));
  }

  listPending(before: Date, limit: number): Promise<Asset[]> {
    return guarded(async () => {
      const rows = await this.db('assets').where({ pending: true }).where('created_at', '<', before.getTime()).orderBy('created_at').limit(limit);
      return rows.map(toAsset);
    });
  }
  findByBlake3(accountId: string, blake3: string, now: Date): Promise<Asset | null> {
    return guarded(async () => {
      const query = unexpired(this.db('assets').where({ account_id: accountId, blake3, pending: false }), now.getTime());
      const row = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).first();
      return row ? toAsset(row) : null;
    });
  }

  listMissingBlake3(after: string | null, limit: number): Promise<string[]> {
    return guarded(async () => {
      // In the order of the partial index assets_missing_blake3 (migration 016): no scan, no sort.
      const query = this.db('assets').whereNull('blake3').distinct('sha256').orderBy('sha256').limit(limit);
      if (after !== null) query.where('sha256', '>', after);
      return (await query).map((r: { sha256: string }) => r.sha256);
    });
  }

  setBlake3(sha256: string, blake3: string): Promise<number> {
    return guarded(() => this.db('assets').where({ sha256 }).whereNull('blake3').update({ blake3 }));
  }
}
