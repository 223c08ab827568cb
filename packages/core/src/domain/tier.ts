/**
 * Subscription tiers. The four default tiers always exist; the limits file may add more (an
 * "enterprise" plan), so a tier is a name, checked against the configured ones.
 * @module
 */

/** The default tiers, lowest first. */
export const TIERS = ['starter', 'plus', 'max', 'ultra'] as const;
export type DefaultTier = (typeof TIERS)[number];
/** A tier name: a default one or one the limits file defines. */
export type Tier = string;

/** What a tier the limits file adds may be called: lower case, starting with a letter. */
export const TIER_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

export function isDefaultTier(value: unknown): value is DefaultTier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}
