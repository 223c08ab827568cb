import type { AppVersion } from '../domain/app-version.js';
import { CoreError } from '../domain/errors.js';
import { isUuid } from '../domain/input-validation.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';

/**
 * The app version, if it exists and is not deleted.
 * @throws CoreError APP_VERSION_NOT_FOUND or APP_DELETED, naming the requested id
 */
export async function requireLiveAppVersion(repo: AppVersionRepository, id: string): Promise<AppVersion> {
  // Ids are UUIDs, stored in lower case; a client may send them in upper case.
  const version = await repo.get(isUuid(id) ? id.toLowerCase() : id);
  if (!version) throw new CoreError('APP_VERSION_NOT_FOUND', `App version ${id} not found`);
  if (version.deletedAt !== null) throw new CoreError('APP_DELETED', `App version ${id} has been deleted`);
  return version;
}
