/** Each account's webhook signing secret (`whsec_<base64>`), readable: the worker signs with it. */
export interface WebhookSecretRepository {
  get(accountId: string): Promise<string | null>;
  /** Stores `secret` unless the account has one; returns the one that is stored. */
  setIfAbsent(accountId: string, secret: string, at: Date): Promise<string>;
  /** Replaces the account's secret. */
  replace(accountId: string, secret: string, at: Date): Promise<void>;
}

export const WEBHOOK_SECRET_REPOSITORY = Symbol.for('runload.core.WebhookSecretRepository');
