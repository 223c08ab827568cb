import { Type, type Static } from '@sinclair/typebox';
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { NextCursor, Timestamp, Uuid } from './primitives.js';

export const INPUT_TYPES = ['STRING', 'INT', 'FLOAT', 'BOOLEAN', 'COMBO', 'IMAGE', 'VIDEO', 'AUDIO'] as const;

export const AppInput = Type.Object(
  {
    key: Type.String({ description: '`<nodeId>:<widgetName>`, the key of `inputs` in a run body.' }),
    node_id: Type.String(),
    widget: Type.String(),
    type: Type.Union(INPUT_TYPES.map((t) => Type.Literal(t)), { description: 'ComfyUI type; IMAGE, VIDEO and AUDIO take an asset id.' }),
    default: Type.Unknown({ description: 'The published value, used when a run leaves the input out.' }),
    min: Type.Optional(Type.Number()),
    max: Type.Optional(Type.Number()),
    step: Type.Optional(Type.Number()),
    options: Type.Optional(Type.Array(Type.Unknown(), { description: 'The allowed values of a COMBO.' })),
  },
  { additionalProperties: false },
);
export type AppInput = Static<typeof AppInput>;

const summaryFields = { app_version_id: Uuid, app_id: Uuid, name: Type.String(), created_at: Timestamp };

export const AppVersion = Type.Object({ ...summaryFields, inputs: Type.Array(AppInput) }, { additionalProperties: false });
export type AppVersion = Static<typeof AppVersion>;

export const AppSummary = Type.Object(summaryFields, { additionalProperties: false });
export type AppSummary = Static<typeof AppSummary>;

export const AppList = Type.Object({ apps: Type.Array(AppSummary), next_cursor: NextCursor }, { additionalProperties: false });
export type AppList = Static<typeof AppList>;
