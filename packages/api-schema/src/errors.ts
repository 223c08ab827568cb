/** The three error body forms of the API (SPEC 7.1) and the codes the structured form carries. */
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Type, type Static } from '@sinclair/typebox';

export const ERROR_CODES = [
  'INVALID_REQUEST',
  'INVALID_INPUT',
  'APP_VERSION_NOT_FOUND',
  'APP_DELETED',
  'RUN_NOT_FOUND',
  'ASSET_NOT_FOUND',
  'PREVIEW_NOT_FOUND',
  'ASSET_IN_USE',
  'RATE_LIMITED',
  'GPU_QUOTA_EXCEEDED',
  'SERVICE_UNAVAILABLE',
  'PAYLOAD_TOO_LARGE',
  'RANGE_NOT_SATISFIABLE',
  'IDEMPOTENCY_KEY_IN_USE',
  'IDEMPOTENCY_KEY_REUSED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'INTERNAL_ERROR',
  // Answered by the HTTP server itself, before any route: oversized headers (431), slow headers (408).
  'HEADERS_TOO_LARGE',
  'REQUEST_TIMEOUT',
  // The admin API.
  'FORBIDDEN',
  'ACCOUNT_NOT_FOUND',
  'KEY_NOT_FOUND',
  'INVALID_WORKFLOW',
  // The pool.
  'BACKEND_NOT_FOUND',
  'BACKEND_EXISTS',
  'BACKEND_BUSY',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** `{ error: { code, message } }`, with `retry_after` when rate limited and `details` where documented. */
export const structuredError = (codes: readonly ErrorCode[]) =>
  Type.Object(
    {
      error: Type.Object(
        {
          code: Type.Union(codes.map((c) => Type.Literal(c))),
          message: Type.String(),
          retry_after: Type.Optional(Type.Integer({ minimum: 0, description: 'Seconds to wait; only on RATE_LIMITED.' })),
          details: Type.Optional(Type.Unknown({ description: 'INVALID_INPUT: `[ { key, reason } ]` for every bad input.' })),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  );

export const StructuredError = structuredError(ERROR_CODES);
export type StructuredError = Static<typeof StructuredError>;

/** `{ error: "<text>" }`: authentication (401) and suspension (403), and an upload without a file. */
export const PlainError = Type.Object({ error: Type.String() }, { additionalProperties: false });

/** `{ success: false, error: "Upload failed", reason? }`. */
export const UploadFailure = Type.Object(
  { success: Type.Literal(false), error: Type.Literal('Upload failed'), reason: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
