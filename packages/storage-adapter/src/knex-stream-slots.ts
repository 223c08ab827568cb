/**
 * Event-stream slots in SQLite or PostgreSQL: slot numbers 0..max-1 per account, each one row
 * (primary key), taken by an upsert that only overwrites a lapsed lease, so two instances never
 * hold the same slot and an account never holds more than `max`.
 * @module
 */
import type { Knex } from 'knex';
import type { StreamSlots } from '@runload/core';
import { rawRows } from './columns.js';
import { guarded } from './storage-errors.js';

/**
 * Takes the account's lowest slot that no live lease holds, in one statement: a number no row has,
 * or a row whose lease lapsed (the upsert overwrites only a lapsed one). Returns the holder when it
 * took one. Concurrent opens of one account would otherwise each read the same free slots and try
 * them one by one (about half of `max` failed inserts each, in a burst).
 */
const TAKE_LOWEST_FREE_SLOT = `
  WITH RECURSIVE numbers(slot) AS (SELECT 0 UNION ALL SELECT slot + 1 FROM numbers WHERE slot + 1 < ?)
  INSERT INTO event_stream_slots (account_id, slot, holder, expires_at)
  SELECT CAST(? AS VARCHAR(36)), numbers.slot, CAST(? AS VARCHAR(64)), CAST(? AS BIGINT) FROM numbers
   WHERE numbers.slot NOT IN (SELECT live.slot FROM event_stream_slots live WHERE live.account_id = ? AND live.expires_at > ?)
   ORDER BY numbers.slot LIMIT 1
  ON CONFLICT (account_id, slot) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
   WHERE event_stream_slots.expires_at <= ?
  RETURNING holder`;

export class KnexStreamSlots implements StreamSlots {
  constructor(private readonly db: Knex) {}

  acquire(accountId: string, holder: string, max: number, now: Date, until: Date): Promise<boolean> {
    return guarded(async () => {
      if (max <= 0) return false;
      // Each try is one statement; it takes nothing only when every slot is live, or when another
      // instance took the same free slot in between (PostgreSQL; SQLite runs a write alone).
      for (let attempt = 0; attempt < max; attempt += 1) {
        const rows = rawRows(await this.db.raw(TAKE_LOWEST_FREE_SLOT, [max, accountId, holder, until.getTime(), accountId, now.getTime(), now.getTime()]));
        if (rows[0]?.['holder'] === holder) return true;
        const live = await this.db('event_stream_slots').where({ account_id: accountId }).where('expires_at', '>', now.getTime()).count({ n: '*' });
        if (Number(live[0]?.['n'] ?? 0) >= max) return false;
      }
      return false;
    });
  }

  renew(holders: readonly string[], until: Date): Promise<void> {
    return guarded(async () => {
      for (let i = 0; i < holders.length; i += 500) {
        await this.db('event_stream_slots').whereIn('holder', holders.slice(i, i + 500)).update({ expires_at: until.getTime() });
      }
    });
  }

  release(holder: string): Promise<void> {
    return guarded(async () => {
      await this.db('event_stream_slots').where({ holder }).delete();
    });
  }
}
