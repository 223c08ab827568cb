import { randomUUID } from 'node:crypto';
import type { Run } from '../domain/run.js';
import type { IdempotencyClaim, IdempotencyClaimRequest, IdempotencyHold, IdempotencyStore, StoredResponse } from '../ports/idempotency-store.js';
import type { RunRepository } from '../ports/run-repository.js';

interface Row {
  fingerprint: string;
  token: string;
  response: StoredResponse | null;
  claimUntil: number;
  expiresAt: number;
}

export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly rows = new Map<string, Row>();

  /** `runs`: where `completeWithRun` writes the run. */
  constructor(private readonly runs: RunRepository) {}

  async claim(r: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    const id = `${r.accountId}\n${r.key}`;
    const row = this.rows.get(id);
    const now = r.now.getTime();
    const free = !row || row.expiresAt <= now || (row.response === null && row.claimUntil <= now);
    if (free) {
      const token = randomUUID();
      this.rows.set(id, { fingerprint: r.fingerprint, token, response: null, claimUntil: r.claimUntil.getTime(), expiresAt: r.expiresAt.getTime() });
      return { outcome: 'claimed', token };
    }
    if (row.response === null) return { outcome: 'in-flight' };
    return { outcome: 'done', fingerprint: row.fingerprint, response: structuredClone(row.response) };
  }

  async complete(hold: IdempotencyHold, response: StoredResponse): Promise<boolean> {
    const row = this.held(hold);
    if (!row) return false;
    row.response = structuredClone(response);
    return true;
  }

  async completeWithRun(hold: IdempotencyHold, run: Run, response: StoredResponse): Promise<void> {
    const row = this.held(hold);
    if (!row) throw new Error('the idempotency claim was lost');
    await this.runs.create(run);
    row.response = structuredClone(response);
  }

  async release(hold: IdempotencyHold): Promise<void> {
    if (this.held(hold)) this.rows.delete(`${hold.accountId}\n${hold.key}`);
  }

  async purgeExpired(now: Date): Promise<number> {
    let n = 0;
    for (const [id, row] of this.rows) {
      if (row.expiresAt <= now.getTime()) {
        this.rows.delete(id);
        n += 1;
      }
    }
    return n;
  }

  private held(hold: IdempotencyHold): Row | null {
    const row = this.rows.get(`${hold.accountId}\n${hold.key}`);
    return row && row.token === hold.token && row.response === null ? row : null;
  }
}
