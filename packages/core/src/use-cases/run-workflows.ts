/**
 * A run's workflow, for what shows it (the Comfy API v2's job view counts its nodes and names the
 * one running). It is the run's app version's: versions never change and are never removed, so a
 * run keeps no copy of its own.
 * @module
 */
import type { AppVersion, Workflow } from '../domain/app-version.js';
import { CoreError } from '../domain/errors.js';
import type { Run } from '../domain/run.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';

/**
 * The run's app version.
 * @throws CoreError APP_VERSION_NOT_FOUND when it is not stored (versions are never removed: only a
 *   database changed by hand lacks one)
 */
export async function versionOfRun(versions: AppVersionRepository, run: Pick<Run, 'appVersionId'>): Promise<AppVersion> {
  const version = await versions.get(run.appVersionId);
  if (!version) throw new CoreError('APP_VERSION_NOT_FOUND', `The run's app version ${run.appVersionId} is not stored`);
  return version;
}

export class RunWorkflows {
  constructor(private readonly versions: AppVersionRepository) {}

  /** The workflow of the run's app version. @throws CoreError APP_VERSION_NOT_FOUND (see {@link versionOfRun}) */
  async of(run: Pick<Run, 'appVersionId'>): Promise<Workflow> {
    return (await versionOfRun(this.versions, run)).workflow;
  }

  /** The workflows of these runs' versions, by version id (each version read once; one not stored is left out). */
  async ofAll(runs: readonly Pick<Run, 'appVersionId'>[]): Promise<Map<string, Workflow>> {
    const versions = await Promise.all([...new Set(runs.map((r) => r.appVersionId))].map((id) => this.versions.get(id)));
    return new Map(versions.flatMap((v) => (v ? [[v.id, v.workflow] as const] : [])));
  }
}
