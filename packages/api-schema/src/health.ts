import { Type, type Static } from '@sinclair/typebox';
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';

/** `/healthz`: open, so each component can report its own state. */
export const Health = Type.Object(
  { status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')]) },
  { additionalProperties: true, description: 'The state of the database, the limiter and the backends, each under its own key.' },
);
export type Health = Static<typeof Health>;
