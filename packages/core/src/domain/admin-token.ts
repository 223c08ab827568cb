/**
 * Admin tokens: `rladm_<prefix>_<secret>`, the operator's credentials for the admin API. They are
 * made, stored and compared like API keys (a public prefix for lookup, the SHA-256 of the secret),
 * and each carries the scopes it may use.
 * @module
 */
import { API_KEY_PREFIX_LENGTH, API_KEY_SECRET_LENGTH } from './api-key.js';

export const ADMIN_TOKEN_WORD = 'rladm';

/**
 * What a token may do: `accounts` (accounts and their keys), `apps`, `backends`,
 * `backends:register` (a GPU machine registering itself), `usage`, `read` (every read of the
 * admin API) and `*` (everything).
 */
export const ADMIN_SCOPES = ['accounts', 'apps', 'backends', 'backends:register', 'usage', 'read', '*'] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

export interface AdminToken {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly AdminScope[];
  readonly prefix: string;
  /** Hex SHA-256 of the secret part. */
  readonly secretHash: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

export function isAdminScope(value: unknown): value is AdminScope {
  return typeof value === 'string' && (ADMIN_SCOPES as readonly string[]).includes(value);
}

/**
 * Whether scopes `granted` let a token call a route that needs `required`. `*` allows all; a scope
 * allows its sub-scopes (`backends` allows `backends:register`); `read` allows every read.
 */
export function scopeAllows(granted: readonly AdminScope[], required: AdminScope, isRead: boolean): boolean {
  return granted.some((g) => g === '*' || g === required || required.startsWith(`${g}:`) || (isRead && g === 'read'));
}

const BASE62 = /^[0-9A-Za-z]+$/;

/** Splits a presented admin token; null when its shape is wrong (an API key included). Never throws. */
export function parseAdminToken(raw: string): { readonly prefix: string; readonly secret: string } | null {
  const parts = raw.split('_');
  if (parts.length !== 3) return null;
  const [word, prefix, secret] = parts as [string, string, string];
  if (word !== ADMIN_TOKEN_WORD) return null;
  if (prefix.length !== API_KEY_PREFIX_LENGTH || !BASE62.test(prefix)) return null;
  if (secret.length !== API_KEY_SECRET_LENGTH || !BASE62.test(secret)) return null;
  return { prefix, secret };
}

export function formatAdminToken(prefix: string, secret: string): string {
  return `${ADMIN_TOKEN_WORD}_${prefix}_${secret}`;
}
