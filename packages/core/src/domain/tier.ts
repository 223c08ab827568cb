/** Subscription tiers, lowest first. */
export const TIERS = ['starter', 'plus', 'max', 'ultra'] as const;
export type Tier = (typeof TIERS)[number];

export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}
