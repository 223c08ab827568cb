/**
 * Migration 013: a run can be claimed to wait for room on a backend that the claimer's runs fill
 * (its prompt goes the moment one of them is done there). Such a run takes its slot in every
 * claim's count but is not yet held on the backend: the pool leaves it out of `held` until its
 * prompt is sent. Every run stored before this migration was claimed the usual way.
 * @module
 */
import type { Knex } from 'knex';

export const RUNS_WAITING_FOR_ROOM_MIGRATION = {
  name: '013_runs_waiting_for_room',
  // Plain SQL: knex's schema builder may rebuild a SQLite table to alter it, which would drop the
  // triggers on `runs` (the in-flight counts, the webhook outbox).
  async up(db: Knex): Promise<void> {
    await db.raw('ALTER TABLE runs ADD COLUMN waits_for_room boolean NOT NULL DEFAULT false');
  },
  async down(db: Knex): Promise<void> {
    await db.raw('ALTER TABLE runs DROP COLUMN waits_for_room');
  },
};
