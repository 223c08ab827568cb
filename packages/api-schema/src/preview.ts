/** Live previews: the `preview` event of a run's stream. */
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Type, type Static } from '@sinclair/typebox';

export const PREVIEW_CONTENT_TYPES = ['image/jpeg', 'image/png'] as const;

/** The `data:` of an `event: preview`: a new preview image of the run, read from `url`. */
export const RunPreviewEvent = Type.Object(
  {
    run_id: Type.String({ format: 'uuid' }),
    node_id: Type.Union([Type.String(), Type.Null()], { description: 'The node that sent it, when the backend says so.' }),
    seq: Type.Integer({ minimum: 1, description: 'Grows with each preview of the run.' }),
    content_type: Type.Union(PREVIEW_CONTENT_TYPES.map((t) => Type.Literal(t))),
    url: Type.String({ description: '`/api/v1/runs/{id}/preview?seq=N`; the route always answers the latest preview.' }),
  },
  { additionalProperties: false },
);
export type RunPreviewEvent = Static<typeof RunPreviewEvent>;
