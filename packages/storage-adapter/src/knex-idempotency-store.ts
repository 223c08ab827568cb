/**
 * Idempotency keys in SQLite or PostgreSQL: a claim is one atomic upsert on the (account, key)
 * primary key, so concurrent requests on any number of instances see one winner; the run and
 * the response it produced are written in one transaction.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { IdempotencyClaim, IdempotencyClaimRequest, IdempotencyHold, IdempotencyStore, Run, StoredResponse } from '@runload/core';
import { rawRows } from './columns.js';
import { fromRun } from './run-row.js';
import { guarded } from './storage-errors.js';

export class KnexIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Knex) {}

  claim(r: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    return guarded(async () => {
      const token = randomUUID();
      const now = r.now.getTime();
      // Takes the key when it is new, expired, or claimed by a request that never finished in time.
      const taken = rawRows(
        await this.db.raw(
          `INSERT INTO idempotency_keys (account_id, key, fingerprint, token, response, claim_until, expires_at)
           VALUES (?, ?, ?, ?, NULL, ?, ?)
           ON CONFLICT (account_id, key) DO UPDATE
             SET fingerprint = excluded.fingerprint, token = excluded.token, response = NULL,
                 claim_until = excluded.claim_until, expires_at = excluded.expires_at
           WHERE idempotency_keys.expires_at <= ? OR (idempotency_keys.response IS NULL AND idempotency_keys.claim_until <= ?)
           RETURNING token`,
          [r.accountId, r.key, r.fingerprint, token, r.claimUntil.getTime(), r.expiresAt.getTime(), now, now],
        ),
      );
      if (taken[0]?.['token'] === token) return { outcome: 'claimed', token };
      const row = await this.db('idempotency_keys').where({ account_id: r.accountId, key: r.key }).first();
      // Deleted in between (released or purged): the client's retry will claim it.
      if (!row || row.response === null) return { outcome: 'in-flight' };
      return { outcome: 'done', fingerprint: String(row.fingerprint), response: JSON.parse(String(row.response)) as StoredResponse };
    });
  }

  complete(hold: IdempotencyHold, response: StoredResponse): Promise<boolean> {
    return guarded(async () => (await this.finish(this.db, hold, response)) > 0);
  }

  completeWithRun(hold: IdempotencyHold, run: Run, response: StoredResponse): Promise<void> {
    return guarded(() =>
      this.db.transaction(async (trx) => {
        // The key first: on PostgreSQL its row lock keeps a takeover from racing this transaction.
        if ((await this.finish(trx, hold, response)) === 0) throw new Error('the idempotency claim was lost before the run was written');
        await trx('runs').insert(fromRun(run));
      }),
    );
  }

  release(hold: IdempotencyHold): Promise<void> {
    return guarded(async () => {
      await this.db('idempotency_keys').where({ account_id: hold.accountId, key: hold.key, token: hold.token }).whereNull('response').delete();
    });
  }

  purgeExpired(now: Date): Promise<number> {
    return guarded(() => this.db('idempotency_keys').where('expires_at', '<=', now.getTime()).delete());
  }

  private finish(db: Knex | Knex.Transaction, hold: IdempotencyHold, response: StoredResponse): Promise<number> {
    return db('idempotency_keys')
      .where({ account_id: hold.accountId, key: hold.key, token: hold.token })
      .whereNull('response')
      .update({ response: JSON.stringify(response) });
  }
}
