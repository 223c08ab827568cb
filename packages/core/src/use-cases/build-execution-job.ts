import { isMediaInputType } from '../domain/app-version.js';
import type { Run } from '../domain/run.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { ExecutionJob, MediaFile } from '../ports/executor.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';

/** The job for a run: its own workflow copy, its inputs, and its media inputs' bytes. */
export async function buildExecutionJob(run: Run, versions: AppVersionRepository, assets: AssetRepository, blobs: BlobStore): Promise<ExecutionJob> {
  const version = await versions.get(run.appVersionId);
  const mediaKeys = new Set((version?.inputs ?? []).filter((i) => isMediaInputType(i.type)).map((i) => i.key));
  const media: Record<string, MediaFile> = {};
  for (const [key, value] of Object.entries(run.inputs)) {
    if (!mediaKeys.has(key)) continue;
    const asset = await assets.get(String(value));
    if (!asset) continue;
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
  return { runId: run.id, workflow: run.workflow, inputs: run.inputs, media };
}
