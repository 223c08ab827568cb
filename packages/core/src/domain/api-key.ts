/**
 * API keys: `rl_<prefix>_<secret>`. The prefix (10 base62 chars) is public and used for
 * lookup; only the SHA-256 of the secret (43 base62 chars, 32 random bytes) is stored.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export const API_KEY_WORD = 'rl';
export const API_KEY_PREFIX_LENGTH = 10;
/** 32 bytes of randomness need 43 base62 characters (62^43 > 2^256). */
export const API_KEY_SECRET_LENGTH = 43;

export interface ApiKey {
  readonly id: string;
  readonly accountId: string;
  readonly prefix: string;
  /** Hex SHA-256 of the secret part. */
  readonly secretHash: string;
  /** What the operator called it (the admin API's `name`), or null. */
  readonly name: string | null;
  readonly createdAt: Date;
  /** When it last authenticated a request (noted at most once a minute), or null. */
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

export interface ParsedApiKey {
  readonly prefix: string;
  readonly secret: string;
}

const BASE62 = /^[0-9A-Za-z]+$/;

/** Splits a presented key; returns null when its shape is wrong (never throws). */
export function parseApiKey(raw: string): ParsedApiKey | null {
  const parts = raw.split('_');
  if (parts.length !== 3) return null;
  const [word, prefix, secret] = parts as [string, string, string];
  if (word !== API_KEY_WORD) return null;
  if (prefix.length !== API_KEY_PREFIX_LENGTH || !BASE62.test(prefix)) return null;
  if (secret.length !== API_KEY_SECRET_LENGTH || !BASE62.test(secret)) return null;
  return { prefix, secret };
}

export function formatApiKey(prefix: string, secret: string): string {
  return `${API_KEY_WORD}_${prefix}_${secret}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret against a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
