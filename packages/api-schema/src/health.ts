import { Type, type Static } from '@sinclair/typebox';
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Nullable } from './primitives.js';

/** Open objects: a component may report more than these fields (an embedder's own health, say). */
const open = { additionalProperties: true } as const;

/** `/healthz`: the standalone server's parts, each under its own key. */
export const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')], {
      description: '`ok`; `degraded` while some backend (or every one) is unreachable; `unavailable` when the database is.',
    }),
    database: Type.Optional(Type.Object({ ok: Type.Boolean(), detail: Type.Optional(Type.String({ description: 'Why it failed.' })) }, open)),
    limiter: Type.Optional(Type.Object({ mode: Type.String({ description: '`in-process` or `redis` (with its state).' }) }, open)),
    backends: Type.Optional(
      Type.Object(
        {
          available: Type.Boolean({ description: 'Whether any ComfyUI server is reachable.' }),
          backends: Type.Array(
            Type.Object(
              {
                id: Type.String(),
                url: Type.String(),
                healthy: Type.Boolean(),
                detail: Type.Optional(Nullable(Type.String({ description: 'The last probe: `ok`, or why it failed.' }))),
              },
              open,
            ),
          ),
        },
        open,
      ),
    ),
    dispatcher: Type.Optional(Type.Object({ running: Type.Boolean(), in_flight: Type.Integer({ minimum: 0, description: 'Runs this instance follows now.' }) }, open)),
  },
  { ...open, description: 'The state of the database, the limiter, the backends and the dispatcher.' },
);
export type Health = Static<typeof Health>;
