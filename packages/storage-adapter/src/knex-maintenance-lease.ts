import type { Knex } from 'knex';
import type { MaintenanceLease } from '@runload/core';
import { guarded } from './storage-errors.js';

export class KnexMaintenanceLease implements MaintenanceLease {
  constructor(private readonly db: Knex) {}

  acquire(name: string, owner: string, until: Date, now: Date): Promise<boolean> {
    return guarded(async () => {
      // One statement: of owners racing for a free or expired lease, exactly one row version wins.
      await this.db.raw(
        `INSERT INTO maintenance_leases (name, owner, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
         WHERE maintenance_leases.owner = excluded.owner OR maintenance_leases.expires_at <= ?`,
        [name, owner, until.getTime(), now.getTime()],
      );
      const row = await this.db('maintenance_leases').where({ name }).first('owner', 'expires_at');
      return row?.owner === owner && Number(row.expires_at) === until.getTime();
    });
  }
}
