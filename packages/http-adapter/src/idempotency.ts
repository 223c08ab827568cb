/**
 * `Idempotency-Key` on the creating endpoints (CONTRACT 8): the request's fingerprint, the
 * replay of a stored response with `Idempotent-Replayed: true`, and the release of the key when
 * the request fails.
 * @module
 */
import { createHash } from 'node:crypto';
import { CoreError, isValidIdempotencyKey, type Asset, type IdempotencyHold, type RunloadApi, type StoredResponse } from '@runload/core';
import type { RouteContext, RouteResult } from './api-route.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The key sent, or null; a malformed one is refused before any work. */
export function idempotencyKeyOf(ctx: RouteContext): string | null {
  const key = ctx.event.req.headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return null;
  if (!isValidIdempotencyKey(key)) throw new CoreError('INVALID_REQUEST', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters');
  return key;
}

export { canonicalJson } from '@runload/core';

export function fingerprint(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(p).update('\0');
  return hash.digest('hex');
}

function replayed(response: StoredResponse): RouteResult {
  return { status: response.status, body: response.body, headers: { ...response.headers, 'Idempotent-Replayed': 'true' } };
}

/**
 * Runs `work` under the key when one was sent (the request's fingerprint is computed only then).
 * `work` gets the claim (to write its result in the same transaction) and must return a 2xx
 * result; any error frees the key.
 */
export async function idempotently(
  ctx: RouteContext,
  api: RunloadApi,
  requestFingerprint: () => string,
  work: (hold: IdempotencyHold | null) => Promise<RouteResult>,
): Promise<RouteResult> {
  const key = idempotencyKeyOf(ctx);
  if (key === null) return work(null);
  const start = await api.idempotency.begin(ctx.principal.account.id, key, requestFingerprint());
  if ('replay' in start) return replayed(start.replay);
  try {
    return await work(start.hold);
  } catch (error) {
    await api.idempotency.release(start.hold).catch(() => undefined);
    throw error;
  }
}

/**
 * Uploads are fingerprinted by their bytes and filename, known only once stored: the upload runs
 * first, then the key decides. A replay or a refusal removes the copy just stored.
 * @param endpoint names the route in the fingerprint (a key used on another upload route is another request)
 * @param assetIdOf the stored asset's id in the upload's answer
 */
export async function idempotentUpload(
  ctx: RouteContext,
  api: RunloadApi,
  upload: () => Promise<RouteResult>,
  endpoint = 'POST /assets',
  assetIdOf: (body: unknown) => string = (body) => (body as { asset_id: string }).asset_id,
): Promise<RouteResult> {
  const key = idempotencyKeyOf(ctx);
  const result = await upload();
  if (key === null || result.failure || result.status < 200 || result.status > 299) return result;
  const asset: Asset = await api.getAsset.execute(ctx.principal, assetIdOf(result.body));
  let start;
  try {
    start = await api.idempotency.begin(ctx.principal.account.id, key, fingerprint(endpoint, asset.sha256, asset.filename));
  } catch (error) {
    await api.uploadAsset.remove(asset);
    throw error;
  }
  if ('replay' in start) {
    await api.uploadAsset.remove(asset);
    return replayed(start.replay);
  }
  await api.idempotency.complete(start.hold, { status: result.status, body: result.body, headers: {} });
  return result;
}
