import { isExpired, mediaKindOf, type Asset } from '../domain/asset.js';
import type { Run } from '../domain/run.js';
import { decodeRunCursor, encodeRunCursor } from '../domain/run-cursor.js';
import type { AssetListOptions, AssetPage, AssetRepository } from '../ports/asset-repository.js';
import { InProcessNamedLocks } from '../in-process/in-process-named-locks.js';

const IN_FLIGHT = new Set(['queued', 'running', 'canceling']);

function newestFirst(a: Asset, b: Asset): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

export class InMemoryAssetRepository implements AssetRepository {
  private readonly rows = new Map<string, Asset>();
  /** Ids of the records whose bytes are not committed yet. */
  private readonly pending = new Set<string>();

  /**
   * @param runs the runs whose inputs decide `usedByRunInFlight` (none when omitted); a run of
   * them that becomes `succeeded` reveals the pending records its outputs name, as the databases'
   * trigger does in the run's finishing write
   */
  constructor(private readonly runs: { snapshot(): readonly Run[]; onStatusChange?(listener: (before: Run, after: Run) => void): void } = { snapshot: () => [] }) {
    runs.onStatusChange?.((before, after) => {
      if (after.status !== 'succeeded' || before.status === 'succeeded') return;
      for (const output of after.outputs) {
        if (this.rows.get(output.assetId)?.accountId === after.accountId) this.pending.delete(output.assetId);
      }
    });
  }

  /** Per-sha256 locks. */
  private readonly locks = new InProcessNamedLocks();

  async create(asset: Asset): Promise<void> {
    await this.locked(asset.sha256, async () => {
      if (this.rows.has(asset.id)) throw new Error(`asset ${asset.id} already exists`);
      this.rows.set(asset.id, structuredClone(asset));
    });
  }

  async listExpired(now: Date, limit: number): Promise<Asset[]> {
    return this.stored()
      .filter((a) => isExpired(a, now))
      .sort((a, b) => (a.expiresAt?.getTime() ?? 0) - (b.expiresAt?.getTime() ?? 0))
      .slice(0, limit)
      .map((a) => structuredClone(a));
  }

  async deleteBlobIfUnreferenced(sha256: string, remove: () => Promise<unknown>): Promise<boolean> {
    return this.locked(sha256, async () => {
      if ((await this.countBySha256(sha256)) > 0) return false;
      await remove();
      return true;
    });
  }

  private locked<T>(sha256: string, work: () => Promise<T>): Promise<T> {
    return this.locks.withLock(sha256, work);
  }

  async get(id: string, options: { readonly includePending?: boolean } = {}): Promise<Asset | null> {
    const row = this.rows.get(id);
    return row && (options.includePending || !this.pending.has(id)) ? structuredClone(row) : null;
  }

  async delete(id: string): Promise<boolean> {
    this.pending.delete(id);
    return this.rows.delete(id);
  }

  async countBySha256(sha256: string): Promise<number> {
    let n = 0;
    for (const row of this.rows.values()) if (row.sha256 === sha256) n += 1;
    return n;
  }

  async listByAccount(accountId: string, options: AssetListOptions): Promise<AssetPage> {
    const after = options.after ? decodeRunCursor(options.after) : null;
    const mine = this.stored()
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
      if (!row || row.origin !== 'upload' || this.pending.has(id) || isExpired(row, now)) continue;
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

  async findByBlake3(accountId: string, blake3: string, now: Date): Promise<Asset | null> {
    const found = this.stored().filter((a) => a.accountId === accountId && a.blake3 === blake3 && !isExpired(a, now)).sort(newestFirst)[0];
    return found ? structuredClone(found) : null;
  }

  async listMissingBlake3(after: string | null, limit: number): Promise<string[]> {
    const missing = new Set([...this.rows.values()].filter((a) => a.blake3 === null && (after === null || a.sha256 > after)).map((a) => a.sha256));
    return [...missing].sort().slice(0, limit);
  }

  async setBlake3(sha256: string, blake3: string): Promise<number> {
    let set = 0;
    for (const [id, a] of this.rows) {
      if (a.sha256 !== sha256 || a.blake3 !== null) continue;
      this.rows.set(id, { ...a, blake3 });
      set += 1;
    }
    return set;
  }

  async createPending(asset: Asset): Promise<void> {
    await this.locked(asset.sha256, async () => {
      if (this.rows.has(asset.id)) throw new Error(`asset ${asset.id} already exists`);
      this.rows.set(asset.id, structuredClone(asset));
      this.pending.add(asset.id);
    });
  }

  async markStored(id: string): Promise<boolean> {
    this.pending.delete(id);
    return this.rows.has(id);
  }

  async listPending(before: Date, limit: number): Promise<Asset[]> {
    return [...this.pending]
      .map((id) => this.rows.get(id))
      .filter((a): a is Asset => a !== undefined && a.createdAt.getTime() < before.getTime())
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, limit)
      .map((a) => structuredClone(a));
  }

  private stored(): Asset[] {
    return [...this.rows.values()].filter((a) => !this.pending.has(a.id));
  }
}
