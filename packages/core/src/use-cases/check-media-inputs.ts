import { isMediaInputType, type InputSpec } from '../domain/app-version.js';
import { mediaKindForInput, mediaKindOf } from '../domain/asset.js';
import type { ErrorDetail } from '../domain/errors.js';
import type { AssetRepository } from '../ports/asset-repository.js';

/**
 * Media inputs must name an asset of the caller whose content type is of the input's kind.
 * Another account's asset is reported exactly like a missing one, so ids leak nothing.
 */
export async function checkMediaInputs(
  assets: AssetRepository,
  accountId: string,
  specs: readonly InputSpec[],
  values: Record<string, unknown>,
): Promise<ErrorDetail[]> {
  const problems: ErrorDetail[] = [];
  for (const spec of specs) {
    if (!isMediaInputType(spec.type) || !(spec.key in values)) continue;
    const kind = mediaKindForInput(spec.type);
    const asset = await assets.get(String(values[spec.key]));
    if (!asset || asset.accountId !== accountId) {
      problems.push({ key: spec.key, reason: `no ${kind} asset with this id` });
    } else if (mediaKindOf(asset.contentType) !== kind) {
      problems.push({ key: spec.key, reason: `asset is ${asset.contentType}, expected ${kind === 'audio' ? 'an' : 'a'} ${kind} file` });
    }
  }
  return problems;
}
