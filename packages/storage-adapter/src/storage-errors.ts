import { CoreError } from '@runload/core';

// SQLITE_BUSY: another process held SQLite's write lock past the busy timeout; try again later.
const UNREACHABLE = new Set(['SQLITE_BUSY', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', '57P01', '57P03', '08006', '08001', '08003']);

/** True when an error means the database cannot serve now (as opposed to a bad query). */
export function isUnreachable(error: unknown): boolean {
  const e = error as { code?: string; name?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && UNREACHABLE.has(e.code)) return true;
  if (e.name === 'KnexTimeoutError') return true;
  return /Connection terminated|connect ECONNREFUSED|Timeout acquiring a connection|Query read timeout|timeout expired/.test(e.message ?? '');
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
