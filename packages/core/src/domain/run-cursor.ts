/** Opaque keyset cursor for listing runs newest first: the last run's createdAt and id. */
import { CoreError } from './errors.js';

export interface RunCursor {
  readonly createdAtMs: number;
  readonly id: string;
}

export function encodeRunCursor(run: { readonly createdAt: Date; readonly id: string }): string {
  return Buffer.from(`${run.createdAt.getTime()}:${run.id}`, 'utf8').toString('base64url');
}

/** @throws CoreError INVALID_REQUEST for a cursor this service did not issue */
export function decodeRunCursor(cursor: string): RunCursor {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,15}):([0-9a-f-]{36})$/i.exec(text);
  if (!match) throw new CoreError('INVALID_REQUEST', 'cursor is not one this service issued');
  return { createdAtMs: Number(match[1]), id: match[2] as string };
}
