import type { WebhookSecretRepository } from '../ports/webhook-secret-repository.js';

export class InMemoryWebhookSecrets implements WebhookSecretRepository {
  private readonly secrets = new Map<string, string>();

  async get(accountId: string): Promise<string | null> {
    return this.secrets.get(accountId) ?? null;
  }

  async setIfAbsent(accountId: string, secret: string): Promise<string> {
    if (!this.secrets.has(accountId)) this.secrets.set(accountId, secret);
    return this.secrets.get(accountId) as string;
  }

  async replace(accountId: string, secret: string): Promise<void> {
    this.secrets.set(accountId, secret);
  }
}
