import type { Asset, AssetOrigin, MediaKind } from '../domain/asset.js';

export interface AssetPage {
  readonly assets: readonly Asset[];
  /** Cursor of the next page, or null on the last one. */
  readonly nextCursor: string | null;
}

export interface AssetListOptions {
  readonly limit: number;
  /** A cursor from a previous page. @throws CoreError INVALID_REQUEST for one this service did not issue */
  readonly after?: string | null;
  readonly kind?: MediaKind;
  readonly origin?: AssetOrigin;
  /** Assets expired at this instant are left out. */
  readonly now: Date;
}

export interface AssetRepository {
  /**
   * Stores a new asset record. Takes the lock of its sha256 that `deleteBlobIfUnreferenced`
   * takes: a record created while its bytes are being deleted waits until they are gone (the
   * writer then commits its bytes again).
   */
  create(asset: Asset): Promise<void>;
  /**
   * The asset, or null when no asset has that id (whoever owns it; expired ones included). A
   * pending record (see `createPending`) is null too, unless `includePending` is set.
   */
  get(id: string, options?: { readonly includePending?: boolean }): Promise<Asset | null>;
  /** Removes the record; true when it existed. */
  delete(id: string): Promise<boolean>;
  /** How many asset records point at these bytes. */
  countBySha256(sha256: string): Promise<number>;
  /** The account's assets not expired at `now`, newest first (createdAt, then id). */
  listByAccount(accountId: string, options: AssetListOptions): Promise<AssetPage>;
  /**
   * Restarts the retention clock of these uploads (a run uses them): sets `expiresAt` on those
   * not expired at `now`. Returns how many it set.
   */
  renewUploads(ids: readonly string[], expiresAt: Date | null, now: Date): Promise<number>;
  /** True when a queued, running or canceling run of the asset's owner has it among its inputs. */
  usedByRunInFlight(asset: Asset): Promise<boolean>;
  /** Assets expired at `now` (any account), oldest expiry first, at most `limit`. */
  listExpired(now: Date, limit: number): Promise<Asset[]>;
  /**
   * Under the lock of this sha256 (see `create`): when no asset refers to these bytes, calls
   * `remove` (which deletes them from the blob store) and returns true; otherwise returns false
   * without calling it. An error of `remove` is rethrown.
   */
  deleteBlobIfUnreferenced(sha256: string, remove: () => Promise<unknown>): Promise<boolean>;

  /**
   * As `create`, but the record stays pending until `markStored`, or until a run of its account
   * naming it among its outputs becomes `succeeded` (see `RunRepository.update`): `get`, the
   * listings and `listExpired` leave it out, while `countBySha256` counts it (its bytes are being
   * committed). Used when the bytes are committed after the record, so no one sees a record
   * without bytes.
   */
  createPending(asset: Asset): Promise<void>;
  /** Makes a pending record visible (its bytes are durable); true when the record exists. */
  markStored(id: string): Promise<boolean>;
  /** Pending records created before `before`, oldest first, at most `limit` (a killed writer's leftovers). */
  listPending(before: Date, limit: number): Promise<Asset[]>;
  // Content named by BLAKE3 (the Comfy API v2's dedup).
  /**
   * The account's newest asset of these bytes (by hex BLAKE3) not expired at `now`, or null:
   * bytes of other accounts are never found, so a hash is no key to someone else's content.
   */
  findByBlake3(accountId: string, blake3: string, now: Date): Promise<Asset | null>;
  /**
   * Up to `limit` distinct sha256 of assets whose BLAKE3 is not known yet (stored before it was
   * kept), in ascending order, each greater than `after` (null: from the first).
   */
  listMissingBlake3(after: string | null, limit: number): Promise<string[]>;
  /** Records the BLAKE3 of these bytes on every asset of them that lacks it; returns how many it set. */
  setBlake3(sha256: string, blake3: string): Promise<number>;
}

export const ASSET_REPOSITORY = Symbol.for('runload.core.AssetRepository');
