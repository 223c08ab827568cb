/**
 * The asset statements served a turn of the event loop at a time (see `TickBatch`): a run's
 * media inputs are read when it is created and again when it is dispatched, and each output is
 * recorded and then made visible, so under load many of these wait in the same turn.
 * @module
 */
import type { Knex } from 'knex';

/** A read by id; a pending record is seen only when the caller asked for it. */
export interface AssetRead {
  readonly id: string;
  readonly includePending: boolean;
}

/** The rows of `reads` (null for none), with one `IN` query. */
export async function selectAssets(db: Knex, reads: readonly AssetRead[]): Promise<(Record<string, unknown> | null)[]> {
  const rows: Record<string, unknown>[] = await db('assets').whereIn('id', [...new Set(reads.map((r) => r.id))]);
  const byId = new Map(rows.map((row) => [String(row['id']), row]));
  return reads.map(({ id, includePending }) => {
    const row = byId.get(id);
    // SQLite keeps the boolean as 0 or 1.
    return row && (includePending || !row['pending']) ? row : null;
  });
}

/** Makes pending records visible with one `UPDATE`; for each id, whether its record exists. */
export async function markAssetsStored(db: Knex, ids: readonly string[]): Promise<boolean[]> {
  const updated: { id: string }[] = await db('assets').whereIn('id', [...new Set(ids)]).update({ pending: false }, ['id']);
  const found = new Set(updated.map((row) => String(row.id)));
  return ids.map((id) => found.has(id));
}

/** Several asset rows with one `INSERT` (SQLite: the insert is itself the bytes' lock). */
export async function insertAssetRows(db: Knex, rows: readonly Record<string, unknown>[]): Promise<void[]> {
  await db('assets').insert([...rows]);
  return rows.map(() => undefined);
}
