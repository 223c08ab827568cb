/** The pool's resources in the admin API: backends, a registration, the pool at a glance. */
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from './primitives.js';

const Labels = Type.Record(Type.String(), Type.String(), { description: 'Labels placement matches (`gpu: a100`).', examples: [{ gpu: 'a100', zone: 'eu' }] });

/** Where the examples' backends listen: a reader who sends them adds a backend that is not there (unreachable until it is). */
export const EXAMPLE_BACKEND_URL = 'http://gpu-1.example.internal:8188';
export const EXAMPLE_REGISTERED_URL = 'http://10.0.0.5:8188';

export const Backend = Type.Object(
  {
    backend_id: Uuid,
    url: Type.String({ description: 'Normalised: lower-case scheme and host, no trailing slash. Unique.' }),
    source: Type.Union([Type.Literal('static'), Type.Literal('api'), Type.Literal('registered'), Type.Literal('dns')]),
    state: Type.Union([Type.Literal('active'), Type.Literal('draining'), Type.Literal('drained')]),
    labels: Labels,
    depth: Nullable(Type.Integer({ minimum: 1, description: "Prompts it may hold at once; null keeps the deployment's depth." })),
    has_auth: Type.Boolean({ description: 'Whether credentials are stored for it (they are never shown).' }),
    reachable: Nullable(Type.Boolean({ description: 'What the instances last saw; null until one probed it.' })),
    held: Type.Integer({ minimum: 0, description: 'runload prompts on it now, of every instance.' }),
    comfyui_version: Nullable(Type.String()),
    capabilities_hash: Nullable(Type.String({ description: 'A hash of its /object_info: backends that differ show different hashes.' })),
    warm_app_versions: Type.Array(Uuid),
    runs_executed: Type.Integer({ minimum: 0 }),
    gpu_seconds: Type.Number({ minimum: 0 }),
    last_seen_at: Nullable(Timestamp),
    expires_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
);
export type Backend = Static<typeof Backend>;

export const BackendList = Type.Object({ backends: Type.Array(Backend) }, { additionalProperties: false });
export type BackendList = Static<typeof BackendList>;

const Auth = Type.Union(
  [Type.Object({ header: Type.String({ description: '`Name: value`' }) }, { additionalProperties: false }), Type.Object({ basic: Type.String({ description: '`user:password`' }) }, { additionalProperties: false })],
  { description: 'Credentials sent on every request to the backend; stored apart from the URL, never shown.' },
);

export const AddBackendBody = Type.Object(
  { url: Type.String(), labels: Type.Optional(Labels), depth: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1000 }))), auth: Type.Optional(Auth) },
  {
    additionalProperties: false,
    examples: [
      { url: EXAMPLE_BACKEND_URL, labels: { gpu: 'a100', zone: 'eu' }, depth: 2 },
      { url: 'https://gpu-2.example.internal', auth: { header: 'Authorization: Bearer <token of the proxy>' } },
    ],
  },
);
export type AddBackendBody = Static<typeof AddBackendBody>;

export const ChangeBackendBody = Type.Object(
  { state: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('draining')])), labels: Type.Optional(Labels), depth: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1000 }))) },
  { additionalProperties: false, examples: [{ state: 'draining' }, { state: 'active' }, { labels: { gpu: 'h100' }, depth: null }] },
);
export type ChangeBackendBody = Static<typeof ChangeBackendBody>;

export const RegisterBackendBody = Type.Object(
  { url: Type.String(), labels: Type.Optional(Labels), ttl_seconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 3600, description: 'The lease; default 60.' })), auth: Type.Optional(Auth) },
  { additionalProperties: false, examples: [{ url: EXAMPLE_REGISTERED_URL, labels: { gpu: 'l4' }, ttl_seconds: 60 }] },
);
export type RegisterBackendBody = Static<typeof RegisterBackendBody>;

export const PoolReport = Type.Object(
  {
    backends: Type.Array(Backend),
    queued: Type.Integer({ minimum: 0 }),
    running: Type.Integer({ minimum: 0 }),
    waiting_for_capacity: Type.Integer({ minimum: 0, description: 'Queued runs some backend could run, all such backends being full.' }),
    waiting_for_capability: Type.Integer({ minimum: 0, description: 'Queued runs no backend of the pool can run.' }),
  },
  { additionalProperties: false },
);
export type PoolReport = Static<typeof PoolReport>;
