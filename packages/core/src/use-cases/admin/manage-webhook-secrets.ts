/** Each account's webhook signing secret: made on first use, rotated by the operator. */
import type { Account } from '../../domain/account.js';
import { CoreError } from '../../domain/errors.js';
import type { AccountRepository } from '../../ports/account-repository.js';
import type { Clock } from '../../ports/clock.js';
import type { WebhookSecretRepository } from '../../ports/webhook-secret-repository.js';
import { newWebhookSecret } from '../../system/webhook-secret.js';

export class ManageWebhookSecrets {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly secrets: WebhookSecretRepository,
    private readonly clock: Clock,
  ) {}

  /** The account's secret, made now if it has none (every instance then agrees on one). */
  async secretOf(accountId: string): Promise<string> {
    return (await this.secrets.get(accountId)) ?? this.secrets.setIfAbsent(accountId, newWebhookSecret(), this.clock.now());
  }

  /** @throws CoreError ACCOUNT_NOT_FOUND */
  async show(accountId: string): Promise<{ account: Account; secret: string }> {
    const account = await this.account(accountId);
    return { account, secret: await this.secretOf(account.id) };
  }

  /** A new secret; deliveries from now on are signed with it. @throws CoreError ACCOUNT_NOT_FOUND */
  async rotate(accountId: string): Promise<{ account: Account; secret: string }> {
    const account = await this.account(accountId);
    const secret = newWebhookSecret();
    await this.secrets.replace(account.id, secret, this.clock.now());
    return { account, secret };
  }

  private async account(accountId: string): Promise<Account> {
    const account = await this.accounts.get(accountId);
    if (!account) throw new CoreError('ACCOUNT_NOT_FOUND', `Account ${accountId} not found`);
    return account;
  }
}
