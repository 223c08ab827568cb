import { Type, type Static } from '@sinclair/typebox';
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { NextCursor, Nullable, Timestamp, Uuid } from './primitives.js';

export const RUN_STATUSES = ['queued', 'running', 'canceling', 'succeeded', 'failed', 'canceled', 'expired'] as const;
export const TERMINAL_RUN_STATUSES = ['succeeded', 'failed', 'canceled', 'expired'] as const;
export const WEBHOOK_EVENTS = ['run.started', 'run.succeeded', 'run.failed', 'run.canceled', 'run.expired'] as const;

export const RunStatus = Type.Union(RUN_STATUSES.map((s) => Type.Literal(s)));
export type RunStatus = Static<typeof RunStatus>;

export const WebhookEvent = Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e)));
export type WebhookEvent = Static<typeof WebhookEvent>;

export const RunOutput = Type.Object(
  {
    asset_id: Uuid,
    filename: Type.String(),
    content_type: Type.String(),
    size: Type.Integer({ minimum: 0 }),
    node_id: Type.String(),
    url: Type.String({ description: 'Where to download the bytes: `GET /api/v1/assets/{id}/content`.' }),
  },
  { additionalProperties: false },
);

/** Why a run failed (`error.code` of a failed run). */
export const RUN_ERROR_CODES = ['VALIDATION_ERROR', 'EXECUTION_ERROR', 'RUN_TIMEOUT', 'BACKEND_LOST', 'OUTPUTS_UNREADABLE'] as const;

export const RunFailure = Type.Object(
  {
    code: Type.Union(RUN_ERROR_CODES.map((c) => Type.Literal(c)), {
      description:
        '`VALIDATION_ERROR` (the backend refused the prompt), `EXECUTION_ERROR` (a node failed), `RUN_TIMEOUT` (over `max_run_seconds`), ' +
        '`BACKEND_LOST` (the backend forgot a started run), `OUTPUTS_UNREADABLE` (it ran, but its outputs could not be read back).',
    }),
    message: Type.String(),
    node_id: Nullable(Type.String()),
    node_type: Nullable(Type.String()),
    details: Type.Optional(Type.Unknown({ description: "The backend's node errors of a VALIDATION_ERROR." })),
  },
  { additionalProperties: false },
);

/** The run record (CONTRACT 4). Fields not yet known are null. */
export const Run = Type.Object(
  {
    run_id: Uuid,
    app_version_id: Uuid,
    status: RunStatus,
    created_at: Timestamp,
    started_at: Nullable(Timestamp),
    finished_at: Nullable(Timestamp),
    poll_url: Type.String(),
    inputs: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Every input with the value the run uses.',
      examples: [{ '1:image': '6f1c2a5e-3b7d-4c8e-9a10-2b3c4d5e6f70', '2:blur_radius': 8, '2:sigma': 1.5 }],
    }),
    queue_position: Nullable(Type.Integer({ minimum: 0, description: 'Runs that start before this one; null unless queued.' })),
    progress: Nullable(Type.Object({ value: Type.Number(), max: Type.Number(), node_id: Nullable(Type.String()) }, { additionalProperties: false })),
    outputs: Type.Array(RunOutput),
    error: Nullable(RunFailure),
    metrics: Type.Object(
      { queue_ms: Nullable(Type.Number()), run_ms: Nullable(Type.Number()), gpu_seconds: Nullable(Type.Number()) },
      { additionalProperties: false },
    ),
    webhook: Type.Optional(Nullable(Type.String({ description: 'The URL that receives the run\'s events, when the run body named one.', examples: ['https://hooks.example.com/runload'] }))),
    webhook_events: Type.Optional(Nullable(Type.Array(WebhookEvent))),
    attempts: Type.Integer({
      minimum: 0,
      description: 'Dispatches of the run that reached a backend. More than 1 when backends were lost after it started and it went to another (failover); the GPU time of the finishing attempt alone is charged.',
    }),
  },
  { additionalProperties: false },
);
export type Run = Static<typeof Run>;

export const CreatedRun = Type.Object(
  { run_id: Uuid, status: Type.Literal('queued'), created_at: Timestamp, poll_url: Type.String() },
  { additionalProperties: false },
);
export type CreatedRun = Static<typeof CreatedRun>;

export const RunList = Type.Object({ runs: Type.Array(Run), next_cursor: NextCursor }, { additionalProperties: false });
export type RunList = Static<typeof RunList>;
