import type { AppVersion } from '../domain/app-version.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';
import { requireLiveAppVersion } from './require-live-app-version.js';

/** The metadata endpoint: an app version and its typed inputs. Every account may read every app. */
export class DescribeAppVersion {
  constructor(private readonly appVersions: AppVersionRepository) {}

  /** @throws CoreError APP_VERSION_NOT_FOUND, APP_DELETED */
  execute(appVersionId: string): Promise<AppVersion> {
    return requireLiveAppVersion(this.appVersions, appVersionId);
  }
}
