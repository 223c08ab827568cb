/** The admin API's resources: what a billing site or a support tool reads and sends. */
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Type, type Static } from '@sinclair/typebox';

export const AdminTier = Type.Object(
  {
    name: Type.String({ description: 'The tier name accounts are put on: the four defaults and those the limits file adds.' }),
    runs_per_minute: Type.Number(),
    runs_per_hour: Type.Number(),
    gpu_seconds_per_month: Type.Number(),
    workflows: Type.Boolean({ description: 'Whether accounts of this tier may submit raw workflow graphs.' }),
  },
  { additionalProperties: false },
);

export const TierList = Type.Object({ tiers: Type.Array(AdminTier) }, { additionalProperties: false });
export type TierList = Static<typeof TierList>;
