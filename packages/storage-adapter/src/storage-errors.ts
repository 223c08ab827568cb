import { CoreError } from '@runload/core';

// SQLITE_BUSY: another process held SQLite's write lock past the busy timeout; try again later.
// SQLITE_FULL and PostgreSQL's 53100 (disk_full): the database's disk is full; nothing was written,
// and the same request succeeds once space returns.
const UNREACHABLE = new Set(['SQLITE_BUSY', 'SQLITE_FULL', '53100', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', '57P01', '57P03', '08006', '08001', '08003']);

/** True when an error means the database cannot serve now (as opposed to a bad query). */
export function isUnreachable(error: unknown): boolean {
  const e = error as { code?: string; name?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && UNREACHABLE.has(e.code)) return true;
  if (e.name === 'KnexTimeoutError') return true;
  // SQLite rolls a transaction back itself when a write in it fails for want of space or I/O (full
  // disk, I/O error, out of memory); the ROLLBACK that follows then fails with this, hiding that cause.
  return /Connection terminated|connect ECONNREFUSED|Timeout acquiring a connection|Query read timeout|timeout expired|cannot rollback - no transaction is active/.test(e.message ?? '');
}

/** Runs a database call; unreachable-database errors become CoreError STORAGE_UNAVAILABLE. */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUnreachable(error)) throw new CoreError('STORAGE_UNAVAILABLE', 'The database is unreachable', { cause: error });
    throw error;
  }
}
