/**
 * The shapes of the Comfy API v2 as runload serves it (the official Comfy SDKs speak it): jobs,
 * assets named by BLAKE3, its event payloads and its error envelope.
 * @module
 */
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../primitives.js';

/** Every error code the v2 routes answer with. */
export const V2_ERROR_CODES = [
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'invalid_request',
  'invalid_workflow',
  'workflow_format_ui',
  'missing_asset',
  'hash_mismatch',
  'blob_not_found',
  'idempotency_key_reuse',
  'idempotency_conflict',
  'queue_full',
  'asset_in_use',
  'payload_too_large',
  'unsupported_media_type',
  'range_not_satisfiable',
  'conflict',
  'service_unavailable',
  'internal_error',
] as const;
export type V2ErrorCode = (typeof V2_ERROR_CODES)[number];

export const V2ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(V2_ERROR_CODES.map((c) => Type.Literal(c))),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'More about the error: `node_errors` by node id for a refused graph.' })),
    }),
  },
  { description: 'The v2 error envelope.' },
);

const Blake3Hash = Type.String({ pattern: '^blake3:[0-9a-f]{64}$', description: '`blake3:<hex>`.' });
const AbsoluteUrl = Type.String({ format: 'uri', description: 'Absolute; it needs the API key like every route.' });
const Bytes = Type.Integer({ minimum: 0 });

export const V2Asset = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    hash: Nullable(Blake3Hash),
    size_bytes: Bytes,
    content_type: Type.String(),
    file_path: Nullable(Type.String()),
    created_new: Type.Optional(Type.Boolean({ description: 'On creation: true when the bytes were new, false when they were already stored.' })),
    created_at: Timestamp,
    url: AbsoluteUrl,
    url_expires_at: Type.String({ format: 'date-time', description: 'When the asset expires (retention); 9999-12-31T23:59:59.999Z when it is kept until deleted.' }),
    expires_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
);

export const V2Progress = Type.Object(
  {
    value: Type.Number({ minimum: 0, maximum: 1, description: 'The fraction of the nodes to run that are done, the running one counting for its steps done; 1 once the job succeeded.' }),
    nodes_done: Type.Integer({ minimum: 0 }),
    nodes_total: Type.Integer({ minimum: 0 }),
    current_node: Nullable(Type.String()),
    current_node_class: Nullable(Type.String()),
    step: Nullable(Type.Integer({ minimum: 0, description: 'Not kept apart: null.' })),
    steps: Nullable(Type.Integer({ minimum: 0, description: 'Not kept apart: null.' })),
    message: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

export const V2Output = Type.Object(
  {
    node_id: Type.String(),
    name: Type.String(),
    type: Type.Union(['image', 'video', 'audio', 'text', 'file', 'latent'].map((t) => Type.Literal(t))),
    content_type: Type.String(),
    size_bytes: Bytes,
    id: Type.String({ format: 'uuid', description: 'The asset id of the output.' }),
    hash: Nullable(Blake3Hash),
    url: AbsoluteUrl,
    url_expires_at: Type.String({ format: 'date-time' }),
    job_id: Type.String({ format: 'uuid' }),
  },
  { additionalProperties: false },
);

export const V2JobStatus = Type.Union(['queued', 'running', 'succeeded', 'canceling', 'canceled', 'failed', 'expired'].map((s) => Type.Literal(s)));

export const V2Job = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The job id, which is also its run id under `/api/v1`.' }),
    status: V2JobStatus,
    created_at: Timestamp,
    started_at: Nullable(Timestamp),
    completed_at: Nullable(Timestamp),
    expires_at: Type.String({ format: 'date-time', description: "When the job's outputs expire (retention)." }),
    queue_position: Nullable(Type.Integer({ minimum: 0 })),
    progress: Nullable(V2Progress),
    outputs: Type.Array(V2Output),
    error: Nullable(
      Type.Object({
        code: Type.String({ description: '`node_execution_error`, `validation_error`, `run_timeout`, `backend_lost` or `outputs_unreadable`.' }),
        message: Type.String(),
        node_id: Nullable(Type.String()),
        class_type: Nullable(Type.String()),
        traceback: Nullable(Type.String()),
      }),
    ),
    metrics: Type.Object({ queue_ms: Nullable(Type.Integer()), execution_ms: Nullable(Type.Integer()), gpu_ms: Nullable(Type.Integer()) }),
    urls: Type.Object({ self: Type.String(), events: Type.String(), cancel: Type.String() }),
  },
  { additionalProperties: false },
);

export const V2JobList = Type.Object({
  jobs: Type.Array(V2Job),
  next_cursor: Nullable(Type.String({ description: 'Pass as `cursor` to read the next page; null on the last page.' })),
});

export const V2Health = Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')]) });

/** The SSE payloads, for the document's description of the stream. */
export const V2StatusEvent = Type.Object({ status: V2JobStatus, queue_position: Nullable(Type.Integer({ minimum: 0 })) });
export const V2PreviewEvent = Type.Object({
  node_id: Type.String({ description: 'The node that made it; empty when the backend did not say.' }),
  content_type: Type.Union([Type.Literal('image/jpeg'), Type.Literal('image/png')]),
  data_base64: Type.String(),
});
export const V2LogEvent = Type.Object({ level: Type.String(), message: Type.String() });

export const JobBody = Type.Object(
  {
    workflow: Type.Record(Type.String(), Type.Unknown(), { description: 'The API-format graph; `core/ASSET` references name your assets.' }),
    extra_data: Type.Optional(
      Type.Object({ api_key_comfy_org: Type.Optional(Type.String()) }, { additionalProperties: false, description: 'Accepted and not used: runload runs no partner nodes.' }),
    ),
  },
  { additionalProperties: false },
);

export const FromHashBody = Type.Object(
  {
    hash: Type.String({ description: '`blake3:<hex>` of bytes you uploaded before.' }),
    file_path: Type.Optional(Type.String()),
    tags: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);

export const V2UploadBody = Type.Object({
  file: Type.String({ format: 'binary' }),
  content_type: Type.Optional(Type.String({ description: 'Not trusted: the type is read from the bytes.' })),
  file_path: Type.Optional(Type.String({ description: 'The name kept for the asset (the file part\'s own name otherwise).' })),
  expected_hash: Type.Optional(Type.String({ description: '`blake3:<hex>`: the upload is refused with 409 `hash_mismatch` when the bytes differ.' })),
  tags: Type.Optional(Type.Array(Type.String())),
});
