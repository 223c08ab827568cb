import { Type, type Static } from '@sinclair/typebox';
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Timestamp, Uuid } from './primitives.js';

/** The default tiers; the limits file may add more. */
export const TIERS = ['starter', 'plus', 'max', 'ultra'] as const;

export const Account = Type.Object(
  {
    account_id: Uuid,
    name: Type.String(),
    tier: Type.String({ description: `One of the default tiers (${TIERS.join(', ')}) or one the limits file adds.` }),
    limits: Type.Object(
      {
        general_per_minute: Type.Integer(),
        runs_per_minute: Type.Integer(),
        runs_per_hour: Type.Integer(),
        gpu_seconds_per_month: Type.Number(),
      },
      { additionalProperties: true, description: "The tier's limits; further limits may appear." },
    ),
    gpu_seconds_used: Type.Number(),
    gpu_seconds_quota: Type.Number(),
    quota_resets_at: Timestamp,
  },
  { additionalProperties: false },
);
export type Account = Static<typeof Account>;
