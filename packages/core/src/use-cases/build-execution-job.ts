import { isMediaInputType } from '../domain/app-version.js';
import { CoreError } from '../domain/errors.js';
import type { Run } from '../domain/run.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { ExecutionJob, MediaFile } from '../ports/executor.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';
import { versionOfRun } from './run-workflows.js';

/**
 * The job for a run: its app version's workflow, its inputs, and its media inputs' bytes.
 * @throws CoreError ASSET_NOT_FOUND when a media input's asset no longer exists
 * @throws CoreError APP_VERSION_NOT_FOUND when the run's version is not stored (see {@link versionOfRun})
 */
export async function buildExecutionJob(run: Run, versions: AppVersionRepository, assets: AssetRepository, blobs: BlobStore): Promise<ExecutionJob> {
  const version = await versionOfRun(versions, run);
  const mediaKeys = new Set(version.inputs.filter((i) => isMediaInputType(i.type)).map((i) => i.key));
  const media: Record<string, MediaFile> = {};
  for (const [key, value] of Object.entries(run.inputs)) {
    if (!mediaKeys.has(key)) continue;
    const asset = await assets.get(String(value));
    // Deleted between the run's creation and its dispatch (the two may race): the run cannot start.
    if (!asset) throw new CoreError('ASSET_NOT_FOUND', `Input ${key}: asset ${String(value)} was deleted before the run started`);
    media[key] = {
      assetId: asset.id,
      filename: asset.filename,
      contentType: asset.contentType,
      open: async () => {
        const body = await blobs.open(asset.sha256);
        if (!body) throw new Error(`the bytes of asset ${asset.id} are missing`);
        return body;
      },
    };
  }
  return { runId: run.id, workflow: version.workflow, inputs: run.inputs, media };
}
