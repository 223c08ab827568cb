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

export class KnexStreamSlots implements StreamSlots {
  constructor(private readonly db: Knex) {}

  acquire(accountId: string, holder: string, max: number, now: Date, until: Date): Promise<boolean> {
    return guarded(async () => {
      const live = await this.db('event_stream_slots').where({ account_id: accountId }).where('expires_at', '>', now.getTime()).pluck('slot');
      const taken = new Set(live.map(Number));
      for (let slot = 0; slot < max; slot += 1) {
        if (taken.has(slot)) continue;
        const rows = rawRows(
          await this.db.raw(
            `INSERT INTO event_stream_slots (account_id, slot, holder, expires_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (account_id, slot) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
             WHERE event_stream_slots.expires_at <= ?
             RETURNING holder`,
            [accountId, slot, holder, until.getTime(), now.getTime()],
          ),
        );
        // Someone else took this one since the read: try the next.
        if (rows[0]?.['holder'] === holder) return true;
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
