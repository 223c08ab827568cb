import { API_KEY_PREFIX_LENGTH, API_KEY_SECRET_LENGTH, formatApiKey, hashSecret, type ApiKey } from '../../domain/api-key.js';
import { CoreError } from '../../domain/errors.js';
import type { AccountRepository } from '../../ports/account-repository.js';
import type { ApiKeyRepository } from '../../ports/api-key-repository.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';

export interface IssuedApiKey {
  readonly key: ApiKey;
  /** The full key, shown once; only its hash is stored. */
  readonly apiKey: string;
}

export class ManageApiKeys {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly accounts: AccountRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** @throws CoreError ACCOUNT_NOT_FOUND */
  async create(accountId: string): Promise<IssuedApiKey> {
    if (!(await this.accounts.get(accountId))) throw new CoreError('ACCOUNT_NOT_FOUND', `Account ${accountId} not found`);
    const prefix = this.ids.base62(API_KEY_PREFIX_LENGTH);
    const secret = this.ids.base62(API_KEY_SECRET_LENGTH);
    const key: ApiKey = { id: this.ids.uuid(), accountId, prefix, secretHash: hashSecret(secret), createdAt: this.clock.now(), revokedAt: null };
    await this.keys.create(key);
    return { key, apiKey: formatApiKey(prefix, secret) };
  }

  /** The account's keys (never their secrets), oldest first. @throws CoreError ACCOUNT_NOT_FOUND */
  async list(accountId: string): Promise<ApiKey[]> {
    if (!(await this.accounts.get(accountId))) throw new CoreError('ACCOUNT_NOT_FOUND', `Account ${accountId} not found`);
    return this.keys.listByAccount(accountId);
  }

  /** Revocation is effective on the next request. @throws CoreError KEY_NOT_FOUND */
  async revoke(keyId: string): Promise<ApiKey> {
    const key = await this.keys.revoke(keyId, this.clock.now());
    if (!key) throw new CoreError('KEY_NOT_FOUND', `API key ${keyId} not found`);
    return key;
  }
}
