import { isMediaInputType, type InputSpec } from '../domain/app-version.js';
import { isExpired, mediaKindForInput, mediaKindOf, type Asset } from '../domain/asset.js';
import type { ErrorDetail } from '../domain/errors.js';
import type { AssetRepository } from '../ports/asset-repository.js';

/**
 * Media inputs must name an asset of the caller whose content type is of the input's kind.
 * Another account's asset is reported exactly like a missing one, so ids leak nothing; an
 * expired one is named as such. Each asset that passes is put in `found`, by input key.
 */
export async function checkMediaInputs(
  assets: AssetRepository,
  accountId: string,
  specs: readonly InputSpec[],
  values: Record<string, unknown>,
  now: Date,
  found: Map<string, Asset> = new Map(),
): Promise<ErrorDetail[]> {
  const problems: ErrorDetail[] = [];
  for (const spec of specs) {
    if (!isMediaInputType(spec.type) || !(spec.key in values)) continue;
    const kind = mediaKindForInput(spec.type);
    const asset = await assets.get(String(values[spec.key]));
    if (!asset || asset.accountId !== accountId) {
      problems.push({ key: spec.key, reason: `no ${kind} asset with this id` });
    } else if (isExpired(asset, now)) {
      problems.push({ key: spec.key, reason: 'asset expired (retention); upload it again' });
    } else if (mediaKindOf(asset.contentType) !== kind) {
      problems.push({ key: spec.key, reason: `asset is ${asset.contentType}, expected ${kind === 'audio' ? 'an' : 'a'} ${kind} file` });
    } else {
      found.set(spec.key, asset);
    }
  }
  return problems;
}

/**
 * How far behind the restarted clock an upload's expiry may be left: a run using an upload
 * renewed less than a minute ago (or just uploaded) writes nothing. Days of retention lose at most
 * a minute, and a batch of runs on one input costs one write a minute instead of one per run.
 */
export const RENEWAL_STEP_MS = 60_000;

/** Whether restarting an upload's clock at `expiresAt` moves its expiry by more than a step. */
function needsRenewal(asset: Asset, expiresAt: Date | null): boolean {
  if (asset.expiresAt === null || expiresAt === null) return asset.expiresAt !== expiresAt;
  return expiresAt.getTime() - asset.expiresAt.getTime() > RENEWAL_STEP_MS;
}

/**
 * Restarts the retention clock of the uploads a new run uses (`checked`: the assets
 * {@link checkMediaInputs} found, by input key), in one write, unless each was renewed less than
 * {@link RENEWAL_STEP_MS} ago. One that expired or was deleted since it was checked is reported
 * like an expired or missing input.
 */
export async function renewMediaInputs(assets: AssetRepository, checked: ReadonlyMap<string, Asset>, expiresAt: Date | null, now: Date): Promise<ErrorDetail[]> {
  const uploads = [...checked].filter(([, asset]) => asset.origin === 'upload' && needsRenewal(asset, expiresAt));
  if (uploads.length === 0) return [];
  const ids = [...new Set(uploads.map(([, asset]) => asset.id))];
  if ((await assets.renewUploads(ids, expiresAt, now)) === ids.length) return [];
  // Rare: one went between the check and the renewal; tell which, and how.
  const problems: ErrorDetail[] = [];
  for (const [key, asset] of uploads) {
    const current = await assets.get(asset.id);
    if (!current) problems.push({ key, reason: `no ${mediaKindOf(asset.contentType)} asset with this id` });
    else if (isExpired(current, now)) problems.push({ key, reason: 'asset expired (retention); upload it again' });
  }
  return problems;
}
