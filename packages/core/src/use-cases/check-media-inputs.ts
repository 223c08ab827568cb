import { isMediaInputType, type InputSpec } from '../domain/app-version.js';
import { isExpired, mediaKindForInput, mediaKindOf } from '../domain/asset.js';
import type { ErrorDetail } from '../domain/errors.js';
import type { AssetRepository } from '../ports/asset-repository.js';

/**
 * Media inputs must name an asset of the caller whose content type is of the input's kind.
 * Another account's asset is reported exactly like a missing one, so ids leak nothing; an
 * expired one is named as such.
 */
export async function checkMediaInputs(
  assets: AssetRepository,
  accountId: string,
  specs: readonly InputSpec[],
  values: Record<string, unknown>,
  now: Date,
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
    }
  }
  return problems;
}

/**
 * Restarts the retention clock of the uploads a new run uses. One that expired since it was
 * checked is reported like an expired input.
 */
export async function renewMediaInputs(
  assets: AssetRepository,
  specs: readonly InputSpec[],
  values: Record<string, unknown>,
  expiresAt: Date | null,
  now: Date,
): Promise<ErrorDetail[]> {
  const used = specs.filter((s) => isMediaInputType(s.type) && s.key in values);
  const problems: ErrorDetail[] = [];
  for (const spec of used) {
    if (!isMediaInputType(spec.type)) continue;
    const id = String(values[spec.key]);
    const asset = await assets.get(id);
    if (!asset) {
      problems.push({ key: spec.key, reason: `no ${mediaKindForInput(spec.type)} asset with this id` }); // deleted since it was checked
    } else if (asset.origin === 'upload' && (await assets.renewUploads([id], expiresAt, now)) === 0) {
      problems.push({ key: spec.key, reason: 'asset expired (retention); upload it again' });
    }
  }
  return problems;
}
