/**
 * Content-addressed file storage. Bytes are staged (streamed to a temporary place while
 * hashed), inspected, then committed under their SHA-256 or discarded; identical bytes are
 * stored once.
 * @module
 */

export interface StagedBlob {
  readonly sha256: string;
  /** Hex BLAKE3 of the same bytes, computed in the same pass. */
  readonly blake3: string;
  readonly size: number;
  /** The first bytes (at least 4100, fewer only for a shorter file), for content sniffing. */
  readonly head: Uint8Array;
  /** Moves the bytes into place; `created` is false when identical bytes were already stored. */
  commit(): Promise<{ created: boolean }>;
  /** Removes the staged bytes. Safe to call twice or after commit (then it does nothing). */
  discard(): Promise<void>;
}

export interface ByteRange {
  /** First byte, inclusive. */
  readonly start: number;
  /** Last byte, inclusive. */
  readonly end: number;
}

export interface BlobStore {
  /**
   * Streams `source` to a staging area while hashing. Throws `CoreError('PAYLOAD_TOO_LARGE')`
   * as soon as more than `maxBytes` arrive, leaving nothing behind; a failing source also
   * leaves nothing behind (its error is rethrown).
   */
  stage(source: AsyncIterable<Uint8Array>, options: { maxBytes: number }): Promise<StagedBlob>;
  /** The committed bytes (or a range of them); null when no blob has that hash. */
  open(sha256: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | null>;
  /** Size of a committed blob, or null. */
  size(sha256: string): Promise<number | null>;
  /** Removes a committed blob; true when it existed. */
  delete(sha256: string): Promise<boolean>;
  /**
   * Removes staged bytes a killed process left behind: those untouched for `idleMs`. Only the
   * server calls it, when it starts (never a CLI command: an upload may be in progress). Returns
   * how many it removed.
   */
  removeAbandonedStaging(idleMs: number): Promise<number>;
  /** Hex BLAKE3 of a committed blob, read through once (assets stored before it was kept); null when no blob has that hash. */
  blake3Of(sha256: string): Promise<string | null>;
  /** The sha256 of every committed blob, in no particular order (the retention sweep looks for unreferenced ones). */
  list(): AsyncIterable<string>;
}

export const BLOB_STORE = Symbol.for('runload.core.BlobStore');
