import { Type, type Static } from '@sinclair/typebox';
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Nullable, NextCursor, Timestamp, Uuid } from './primitives.js';

export const Asset = Type.Object(
  {
    asset_id: Uuid,
    filename: Type.String(),
    content_type: Type.String({ description: 'The media type found in the bytes (image, video or audio).' }),
    size: Type.Integer({ minimum: 0, description: 'Bytes.' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    created_at: Timestamp,
    expires_at: Type.Optional(Nullable({ ...Timestamp, description: 'When the asset vanishes under the retention policy; null keeps it.' })),
    origin: Type.Optional(Type.Union([Type.Literal('upload'), Type.Literal('output')])),
  },
  { additionalProperties: false },
);
export type Asset = Static<typeof Asset>;

export const AssetList = Type.Object({ assets: Type.Array(Asset), next_cursor: NextCursor }, { additionalProperties: false });
export type AssetList = Static<typeof AssetList>;
