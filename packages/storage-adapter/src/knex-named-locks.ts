/**
 * Named locks in the database, for instances that share it: a lock is a row of
 * `maintenance_leases` (a lease with a short life, so one whose holder died is taken over), taken
 * by one statement that only a free or expired row lets through, and deleted by its holder.
 * Waiting polls with a growing pause: nobody holds a connection while waiting.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { CoreError, type NamedLocks } from '@runload/core';
import { guarded } from './storage-errors.js';

export interface KnexNamedLocksOptions {
  /** How long a lock lasts if its holder dies before releasing it. */
  readonly ttlMs?: number;
  /** How long `withLock` waits for a lock before giving up. */
  readonly waitMs?: number;
}

export class KnexNamedLocks implements NamedLocks {
  private readonly ttlMs: number;
  private readonly waitMs: number;

  constructor(
    private readonly db: Knex,
    options: KnexNamedLocksOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 10_000;
    this.waitMs = options.waitMs ?? 10_000;
  }

  async withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    const owner = randomUUID();
    const deadline = Date.now() + this.waitMs;
    let pauseMs = 2;
    while (!(await this.tryTake(name, owner))) {
      if (Date.now() >= deadline) throw new CoreError('STORAGE_UNAVAILABLE', `the lock ${name} stayed busy for ${this.waitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, pauseMs + Math.random() * pauseMs));
      pauseMs = Math.min(50, pauseMs * 2);
    }
    try {
      return await work();
    } finally {
      // A release that fails (the database went away) leaves the lock to expire: `work`'s outcome stands.
      await guarded(() => this.db('maintenance_leases').where({ name, owner }).delete()).catch(() => undefined);
    }
  }

  private tryTake(name: string, owner: string): Promise<boolean> {
    return guarded(async () => {
      const now = Date.now();
      const result: unknown = await this.db.raw(
        `INSERT INTO maintenance_leases (name, owner, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
         WHERE maintenance_leases.expires_at <= ?
         RETURNING owner`,
        [name, owner, now + this.ttlMs, now],
      );
      // PostgreSQL answers { rows }, SQLite the rows themselves: a row back means this owner took it.
      const rows = Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? []);
      return rows.length > 0;
    });
  }
}
