import type { Run } from '../domain/run.js';
import { webhookEventFor, type WebhookEventType } from '../domain/webhook.js';
import type { WebhookEvent, WebhookEventStatus, WebhookOutbox } from '../ports/webhook-outbox.js';
import type { InMemoryRunRepository } from './in-memory-run-repository.js';

interface Row {
  event: WebhookEvent;
  state: WebhookEventStatus['state'];
  nextAttemptAt: number;
  leaseOwner: string | null;
  leaseUntil: number;
  lastError: string | null;
  seq: number;
  settledAt: number | null;
}

/** The outbox in memory: fed by the in-memory run repository in the same step as each status change. */
export class InMemoryWebhookOutbox implements WebhookOutbox {
  private readonly rows = new Map<string, Row>();
  private seq = 0;

  constructor(runs: InMemoryRunRepository) {
    runs.onStatusChange((before, after) => {
      // A run that finished before it was seen running did start: it reports run.started too.
      if (before.status === 'queued' && after.startedAt && ['succeeded', 'failed', 'canceled', 'canceling'].includes(after.status)) this.record(after, 'run.started');
      this.record(after, webhookEventFor(after.status));
    });
  }

  async claimDue(owner: string, now: Date, leaseUntil: Date, limit: number): Promise<WebhookEvent[]> {
    const due = [...this.rows.values()]
      .filter((r) => r.state === 'pending' && r.nextAttemptAt <= now.getTime() && (r.leaseOwner === null || r.leaseUntil <= now.getTime()))
      .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.seq - b.seq)
      .slice(0, limit);
    for (const r of due) {
      r.leaseOwner = owner;
      r.leaseUntil = leaseUntil.getTime();
    }
    return due.map((r) => structuredClone(r.event));
  }

  async markDelivered(id: string, owner: string, at: Date): Promise<boolean> {
    const r = this.held(id, owner);
    if (!r) return false;
    Object.assign(r, { state: 'delivered', leaseOwner: null, settledAt: at.getTime(), event: { ...r.event, attempts: r.event.attempts + 1 } });
    return true;
  }

  async markFailed(id: string, owner: string, error: string, nextAttemptAt: Date | null, at: Date): Promise<boolean> {
    const r = this.held(id, owner);
    if (!r) return false;
    Object.assign(r, {
      settledAt: nextAttemptAt ? null : at.getTime(),
      state: nextAttemptAt ? 'pending' : 'failed',
      nextAttemptAt: nextAttemptAt?.getTime() ?? r.nextAttemptAt,
      leaseOwner: null,
      lastError: error,
      event: { ...r.event, attempts: r.event.attempts + 1 },
    });
    return true;
  }

  async purgeSettled(before: Date): Promise<number> {
    let n = 0;
    for (const [id, r] of this.rows) {
      if (r.settledAt !== null && r.settledAt < before.getTime()) {
        this.rows.delete(id);
        n += 1;
      }
    }
    return n;
  }

  async releaseLeases(owner: string): Promise<number> {
    let n = 0;
    for (const r of this.rows.values()) {
      if (r.leaseOwner === owner) {
        r.leaseOwner = null;
        n += 1;
      }
    }
    return n;
  }

  async listForRun(runId: string): Promise<(WebhookEventStatus & { id: string; type: WebhookEventType })[]> {
    return [...this.rows.values()]
      .filter((r) => r.event.runId === runId)
      .sort((a, b) => a.seq - b.seq)
      .map((r) => ({
        id: r.event.id,
        type: r.event.type,
        state: r.state,
        attempts: r.event.attempts,
        nextAttemptAt: r.state === 'pending' ? new Date(r.nextAttemptAt) : null,
        lastError: r.lastError,
      }));
  }

  private record(run: Run, type: WebhookEventType | null): void {
    if (!type || !run.webhook || !run.webhook.events.includes(type)) return;
    const id = webhookEventId(run.id, type);
    if (this.rows.has(id)) return;
    const occurredAt = (type === 'run.started' ? run.startedAt : run.finishedAt) ?? new Date();
    this.seq += 1;
    this.rows.set(id, {
      event: { id, accountId: run.accountId, runId: run.id, type, url: run.webhook.url, occurredAt, run: structuredClone(run), attempts: 0 },
      state: 'pending',
      nextAttemptAt: 0,
      leaseOwner: null,
      leaseUntil: 0,
      lastError: null,
      seq: this.seq,
      settledAt: null,
    });
  }

  private held(id: string, owner: string): Row | null {
    const r = this.rows.get(id);
    return r && r.state === 'pending' && r.leaseOwner === owner ? r : null;
  }
}

/** One id per run and event type (a status never repeats): stable across attempts and instances. */
export function webhookEventId(runId: string, type: WebhookEventType): string {
  return `msg_${runId.replace(/-/g, '')}_${type.slice('run.'.length)}`;
}
