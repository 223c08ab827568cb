/** Response and request headers of the API, described once and named in each response. */
export const HEADERS = {
  'X-Request-Id': { description: 'Echoes a well-formed incoming `X-Request-Id`, or a new id; on every response.', schema: { type: 'string' } },
  'X-RateLimit-Minute-Limit': { description: 'Requests allowed in the minute window with the fewest remaining.', schema: { type: 'integer' } },
  'X-RateLimit-Minute-Remaining': { description: 'Requests left in that window after this one (0 on a 429 from it).', schema: { type: 'integer' } },
  'X-RateLimit-Minute-Reset': { description: "The window's end, Unix seconds.", schema: { type: 'integer' } },
  'X-RateLimit-Hour-Limit': { description: 'Runs allowed in the hour window (run endpoints).', schema: { type: 'integer' } },
  'X-RateLimit-Hour-Remaining': { description: 'Runs left in the hour window.', schema: { type: 'integer' } },
  'X-RateLimit-Hour-Reset': { description: "The hour window's end, Unix seconds.", schema: { type: 'integer' } },
  'X-GPU-Quota-Limit': { description: 'GPU-seconds allowed this calendar month (UTC).', schema: { type: 'number' } },
  'X-GPU-Quota-Remaining': { description: 'GPU-seconds left this month.', schema: { type: 'number' } },
  'X-GPU-Quota-Reset': { description: 'When the quota starts again, Unix seconds.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
  'WWW-Authenticate': { description: 'Always `Bearer`.', schema: { type: 'string', const: 'Bearer' } },
  Location: { description: 'The poll URL of the new run.', schema: { type: 'string' } },
  'Idempotent-Replayed': { description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key`.', schema: { type: 'string', const: 'true' } },
  'Content-Range': { description: '`bytes start-end/size` on a 206; `bytes */size` on a 416.', schema: { type: 'string' } },
  'Content-Length': { description: 'Bytes in the body.', schema: { type: 'integer' } },
  'Accept-Ranges': { description: 'Always `bytes`.', schema: { type: 'string' } },
  'Content-Disposition': { description: '`inline` with the filename.', schema: { type: 'string' } },
  'X-Preview-Seq': { description: 'The sequence number of this preview of the run (grows with each one).', schema: { type: 'integer' } },
  'Cache-Control': { description: '`no-store`: the answer changes while the run executes.', schema: { type: 'string' } },
  Allow: { description: 'The methods the path answers.', schema: { type: 'string' } },
  'X-Next-Cursor': { description: 'The cursor of the next page of a CSV answer; absent on the last page.', schema: { type: 'string' } },
} as const;

export type HeaderName = keyof typeof HEADERS;

/** The headers of every `/api/v1` response. */
export const API_HEADERS: readonly HeaderName[] = ['X-Request-Id', 'X-RateLimit-Minute-Limit', 'X-RateLimit-Minute-Remaining', 'X-RateLimit-Minute-Reset'];

/** What the two run endpoints add. */
export const RUN_HEADERS: readonly HeaderName[] = [
  'X-RateLimit-Hour-Limit',
  'X-RateLimit-Hour-Remaining',
  'X-RateLimit-Hour-Reset',
  'X-GPU-Quota-Limit',
  'X-GPU-Quota-Remaining',
  'X-GPU-Quota-Reset',
];
