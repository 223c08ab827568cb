/**
 * The webhook outbox in SQLite or PostgreSQL. Rows are written by the triggers of migration 006;
 * claims are one statement (PostgreSQL skips rows another instance has locked).
 * @module
 */
import type { Knex } from 'knex';
import type { WebhookEvent, WebhookEventStatus, WebhookEventType, WebhookOutbox } from '@runload/core';
import { rawRows, toDate } from './columns.js';
import { dialectOf } from './open-database.js';
import { toRun } from './run-row.js';
import { guarded } from './storage-errors.js';

function toEvent(row: Record<string, unknown>): WebhookEvent {
  const snapshot = JSON.parse(String(row['run_snapshot'])) as Record<string, unknown>;
  // The snapshot leaves out what no event shows (the workflow, leases).
  const run = toRun({ ...snapshot, backend_id: null, lease_owner: null, lease_expires_at: null, cancel_requested: false });
  return {
    id: String(row['id']),
    accountId: String(row['account_id']),
    runId: String(row['run_id']),
    type: row['event_type'] as WebhookEventType,
    url: String(row['url']),
    occurredAt: toDate(row['occurred_at']),
    run,
    attempts: Number(row['attempts']),
  };
}

export class KnexWebhookOutbox implements WebhookOutbox {
  private readonly skipLocked: string;

  constructor(private readonly db: Knex) {
    this.skipLocked = dialectOf(db) === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
  }

  claimDue(owner: string, now: Date, leaseUntil: Date, limit: number): Promise<WebhookEvent[]> {
    return guarded(async () => {
      const free = `state = 'pending' AND next_attempt_at <= ? AND (lease_owner IS NULL OR lease_expires_at <= ?)`;
      // Most wakes find nothing due (the worker's poll comes every second): a read says so without
      // a write, which on SQLite would wait for the database's one writer.
      const due = rawRows(await this.db.raw(`SELECT 1 AS due FROM webhook_outbox WHERE ${free} LIMIT 1`, [now.getTime(), now.getTime()]));
      if (due.length === 0) return [];
      const result = await this.db.raw(
        `UPDATE webhook_outbox SET lease_owner = ?, lease_expires_at = ?
          WHERE id IN (SELECT id FROM webhook_outbox WHERE ${free} ORDER BY next_attempt_at, created_at, id LIMIT ? ${this.skipLocked})
            AND ${free}
          RETURNING *`,
        [owner, leaseUntil.getTime(), now.getTime(), now.getTime(), limit, now.getTime(), now.getTime()],
      );
      return rawRows(result)
        .map(toEvent)
        .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime());
    });
  }

  markDelivered(id: string, owner: string, at: Date): Promise<boolean> {
    return guarded(async () => {
      const n = await this.held(id, owner).update({
        state: 'delivered',
        settled_at: at.getTime(),
        attempts: this.db.raw('attempts + 1'),
        lease_owner: null,
        lease_expires_at: null,
      });
      return n > 0;
    });
  }

  markFailed(id: string, owner: string, error: string, nextAttemptAt: Date | null, at: Date): Promise<boolean> {
    return guarded(async () => {
      const n = await this.held(id, owner).update({
        state: nextAttemptAt ? 'pending' : 'failed',
        ...(nextAttemptAt ? {} : { settled_at: at.getTime() }),
        ...(nextAttemptAt ? { next_attempt_at: nextAttemptAt.getTime() } : {}),
        attempts: this.db.raw('attempts + 1'),
        last_error: error.slice(0, 1000),
        lease_owner: null,
        lease_expires_at: null,
      });
      return n > 0;
    });
  }

  purgeSettled(before: Date): Promise<number> {
    return guarded(() => this.db('webhook_outbox').whereIn('state', ['delivered', 'failed']).where('settled_at', '<', before.getTime()).delete());
  }

  releaseLeases(owner: string): Promise<number> {
    return guarded(() => this.db('webhook_outbox').where({ lease_owner: owner }).update({ lease_owner: null, lease_expires_at: null }));
  }

  listForRun(runId: string): Promise<(WebhookEventStatus & { id: string; type: WebhookEventType })[]> {
    return guarded(async () => {
      const rows = await this.db('webhook_outbox').where({ run_id: runId }).orderBy([{ column: 'occurred_at' }, { column: 'id' }]);
      return rows.map((r: Record<string, unknown>) => ({
        id: String(r['id']),
        type: r['event_type'] as WebhookEventType,
        state: r['state'] as WebhookEventStatus['state'],
        attempts: Number(r['attempts']),
        nextAttemptAt: r['state'] === 'pending' ? toDate(r['next_attempt_at']) : null,
        lastError: (r['last_error'] as string | null) ?? null,
      }));
    });
  }

  private held(id: string, owner: string) {
    return this.db('webhook_outbox').where({ id, lease_owner: owner, state: 'pending' });
  }
}
