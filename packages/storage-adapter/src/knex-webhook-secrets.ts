import type { Knex } from 'knex';
import type { WebhookSecretRepository } from '@runload/core';
import { guarded } from './storage-errors.js';

export class KnexWebhookSecrets implements WebhookSecretRepository {
  constructor(private readonly db: Knex) {}

  get(accountId: string): Promise<string | null> {
    return guarded(async () => {
      const row = await this.db('webhook_secrets').where({ account_id: accountId }).first('secret');
      return row ? String(row.secret) : null;
    });
  }

  setIfAbsent(accountId: string, secret: string, at: Date): Promise<string> {
    return guarded(async () => {
      await this.db('webhook_secrets').insert({ account_id: accountId, secret, created_at: at.getTime() }).onConflict('account_id').ignore();
      return (await this.get(accountId)) as string;
    });
  }

  replace(accountId: string, secret: string, at: Date): Promise<void> {
    return guarded(async () => {
      await this.db('webhook_secrets').insert({ account_id: accountId, secret, created_at: at.getTime() }).onConflict('account_id').merge();
    });
  }
}
