import { isExpired, mediaKindOf, type Asset } from '../domain/asset.js';
import type { Run } from '../domain/run.js';
import { decodeRunCursor, encodeRunCursor } from '../domain/run-cursor.js';
import type { AssetListOptions, AssetPage, AssetRepository } from '../ports/asset-repository.js';

const IN_FLIGHT = new Set(['queued', 'running', 'canceling']);

function newestFirst(a: Asset, b: Asset): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

export class InMemoryAssetRepository implements AssetRepository {
  private readonly rows = new Map<string, Asset>();

  /** @param runs the runs whose inputs decide `usedByRunInFlight` (none when omitted) */
  constructor(private readonly runs: { snapshot(): readonly Run[] } = { snapshot: () => [] }) {}

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

  async listByAccount(accountId: string, options: AssetListOptions): Promise<AssetPage> {
    const after = options.after ? decodeRunCursor(options.after) : null;
    const mine = [...this.rows.values()]
      .filter((a) => a.accountId === accountId && !isExpired(a, options.now))
      .filter((a) => !options.kind || mediaKindOf(a.contentType) === options.kind)
      .filter((a) => !options.origin || a.origin === options.origin)
      .filter((a) => !after || a.createdAt.getTime() < after.createdAtMs || (a.createdAt.getTime() === after.createdAtMs && a.id < after.id))
      .sort(newestFirst);
    const page = mine.slice(0, options.limit);
    const last = page[page.length - 1];
    return { assets: page.map((a) => structuredClone(a)), nextCursor: mine.length > options.limit && last ? encodeRunCursor(last) : null };
  }

  async renewUploads(ids: readonly string[], expiresAt: Date | null, now: Date): Promise<number> {
    let n = 0;
    for (const id of new Set(ids)) {
      const row = this.rows.get(id);
      if (!row || row.origin !== 'upload' || isExpired(row, now)) continue;
      this.rows.set(id, { ...row, expiresAt });
      n += 1;
    }
    return n;
  }

  async usedByRunInFlight(asset: Asset): Promise<boolean> {
    return this.runs
      .snapshot()
      .some((r) => r.accountId === asset.accountId && IN_FLIGHT.has(r.status) && Object.values(r.inputs).some((v) => v === asset.id));
  }
}
