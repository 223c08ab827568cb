import { API_KEY_PREFIX_LENGTH, API_KEY_SECRET_LENGTH, formatApiKey, hashSecret, type ApiKey } from '../../domain/api-key.js';
import { auditEntry, CLI_AUTHOR, type ChangeAuthor } from '../../domain/audit.js';
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

  /** @throws CoreError ACCOUNT_NOT_FOUND, INVALID_REQUEST for a name that is not a short string */
  async create(accountId: string, author: ChangeAuthor = CLI_AUTHOR, name: string | null = null): Promise<IssuedApiKey> {
    if (name !== null && (typeof name !== 'string' || name.length > 200)) throw new CoreError('INVALID_REQUEST', 'A key name is a string of at most 200 characters');
    if (!(await this.accounts.get(accountId))) throw new CoreError('ACCOUNT_NOT_FOUND', `Account ${accountId} not found`);
    const prefix = this.ids.base62(API_KEY_PREFIX_LENGTH);
    const secret = this.ids.base62(API_KEY_SECRET_LENGTH);
    const now = this.clock.now();
    const key: ApiKey = { id: this.ids.uuid(), accountId, prefix, secretHash: hashSecret(secret), name, createdAt: now, lastUsedAt: null, revokedAt: null };
    await this.keys.create(key, auditEntry(author, 'key.create', key.id, now, this.ids.uuid()));
    return { key, apiKey: formatApiKey(prefix, secret) };
  }

  /** The account's keys (never their secrets), oldest first. @throws CoreError ACCOUNT_NOT_FOUND */
  async list(accountId: string): Promise<ApiKey[]> {
    if (!(await this.accounts.get(accountId))) throw new CoreError('ACCOUNT_NOT_FOUND', `Account ${accountId} not found`);
    return this.keys.listByAccount(accountId);
  }

  /** Refused on every instance within a second. @throws CoreError KEY_NOT_FOUND */
  async revoke(keyId: string, author: ChangeAuthor = CLI_AUTHOR): Promise<ApiKey> {
    const now = this.clock.now();
    const key = await this.keys.revoke(keyId, now, auditEntry(author, 'key.revoke', keyId, now, this.ids.uuid()));
    if (!key) throw new CoreError('KEY_NOT_FOUND', `API key ${keyId} not found`);
    return key;
  }
}
