/** The operator's admin tokens (the CLI): made with their scopes, listed, revoked. */
import { ADMIN_SCOPES, formatAdminToken, isAdminScope, type AdminScope, type AdminToken } from '../../domain/admin-token.js';
import { API_KEY_PREFIX_LENGTH, API_KEY_SECRET_LENGTH, hashSecret } from '../../domain/api-key.js';
import { auditEntry, type ChangeAuthor } from '../../domain/audit.js';
import { CoreError } from '../../domain/errors.js';
import type { AdminTokenRepository } from '../../ports/admin-token-repository.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';

export interface IssuedAdminToken {
  readonly token: AdminToken;
  /** The full token, shown once; only its hash is stored. */
  readonly secret: string;
}

export class ManageAdminTokens {
  constructor(
    private readonly tokens: AdminTokenRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** @throws CoreError INVALID_REQUEST for an empty name, no scope or an unknown one */
  async create(name: string, scopes: readonly string[], author: ChangeAuthor): Promise<IssuedAdminToken> {
    if (name.trim().length === 0) throw new CoreError('INVALID_REQUEST', 'An admin token needs a non-empty name');
    const chosen = requireScopes(scopes);
    const prefix = this.ids.base62(API_KEY_PREFIX_LENGTH);
    const secret = this.ids.base62(API_KEY_SECRET_LENGTH);
    const now = this.clock.now();
    const token: AdminToken = { id: this.ids.uuid(), name: name.trim(), scopes: chosen, prefix, secretHash: hashSecret(secret), createdAt: now, lastUsedAt: null, revokedAt: null };
    await this.tokens.create(token, auditEntry(author, 'admin_token.create', token.id, now, this.ids.uuid()));
    return { token, secret: formatAdminToken(prefix, secret) };
  }

  /** Every token (never a secret), oldest first. */
  list(): Promise<AdminToken[]> {
    return this.tokens.list();
  }

  /** Refused on every instance within a second. @throws CoreError ADMIN_TOKEN_NOT_FOUND */
  async revoke(id: string, author: ChangeAuthor): Promise<AdminToken> {
    const now = this.clock.now();
    const token = await this.tokens.revoke(id, now, auditEntry(author, 'admin_token.revoke', id, now, this.ids.uuid()));
    if (!token) throw new CoreError('ADMIN_TOKEN_NOT_FOUND', `Admin token ${id} not found`);
    return token;
  }
}

function requireScopes(scopes: readonly string[]): AdminScope[] {
  const unknown = scopes.filter((s) => !isAdminScope(s));
  if (unknown.length > 0) throw new CoreError('INVALID_REQUEST', `Unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}: use ${ADMIN_SCOPES.join(', ')}`);
  if (scopes.length === 0) throw new CoreError('INVALID_REQUEST', `An admin token needs at least one scope: ${ADMIN_SCOPES.join(', ')}`);
  return [...new Set(scopes as AdminScope[])];
}
