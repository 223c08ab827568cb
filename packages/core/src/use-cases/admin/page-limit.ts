import { CoreError } from '../../domain/errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../list-runs.js';

/** A list's page size: the default when absent. @throws CoreError INVALID_REQUEST out of 1…MAX_PAGE_SIZE */
export function pageSize(limit: number | undefined): number {
  const size = limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw new CoreError('INVALID_REQUEST', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return size;
}
