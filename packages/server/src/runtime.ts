/**
 * A running runload, resolved from the container: the database opened and migrated, the
 * dispatcher started (for the server), and a close that stops it all in order. The CLI and the
 * server both start here.
 * @module
 */
import path from 'node:path';
import { EXECUTOR, RUNLOAD_API, type Executor, type RunloadApi } from '@runload/core';
import { HTTP_HEALTH, HTTP_SERVER } from '@runload/http-adapter/module';
import type { RunningHttpServer } from '@runload/http-adapter';
import { makeDirectory, type Database } from '@runload/storage-adapter';
import { DATABASE } from '@runload/storage-adapter/module';
import type { RunloadConfig } from './config.js';
import { buildContainer, type ContainerOptions } from './container.js';
import type { HealthReport } from './health-module.js';
import { shutdown } from './shutdown.js';
import { DISPATCHER, INTEGRATIONS, POOL_FOLLOWER, RETENTION_SWEEP } from './tokens.js';

export { ABANDONED_STAGING_MS } from './retention-module.js';
export type { HealthReport } from './health-module.js';

export type RuntimeOptions = ContainerOptions;

export interface Runtime {
  readonly api: RunloadApi;
  readonly db: Database;
  readonly executor: Executor;
  /** Formidable's scratch directory, inside the data directory. */
  readonly uploadDir: string;
  health(): Promise<HealthReport>;
  /** Starts the HTTP server where the configuration says (once; later calls return the same server). Refused once closing. */
  listen(): Promise<RunningHttpServer>;
  /** Stops everything started, in the reverse order it started; later calls return the same promise. */
  close(): Promise<void>;
}

export async function openRuntime(config: RunloadConfig, options: RuntimeOptions): Promise<Runtime> {
  const container = buildContainer(config, options);
  try {
    const api = await container.getAsync<RunloadApi>(RUNLOAD_API);
    if (options.dispatch) {
      // The pool before the dispatcher: its first claims see every backend of the registry.
      await container.getAsync(POOL_FOLLOWER);
      await container.getAsync(RETENTION_SWEEP);
      await container.getAsync(DISPATCHER);
      await container.getAsync(INTEGRATIONS);
    }
    const uploadDir = path.join(config.dataDir, 'uploads');
    makeDirectory(uploadDir);
    let closing: Promise<void> | null = null;
    return {
      api,
      db: await container.getAsync<Database>(DATABASE),
      executor: await container.getAsync<Executor>(EXECUTOR),
      uploadDir,
      health: await container.getAsync<() => Promise<HealthReport>>(HTTP_HEALTH),
      listen: () => (closing ? Promise.reject(new Error('the runtime is closed: it cannot start an HTTP server')) : container.getAsync<RunningHttpServer>(HTTP_SERVER)),
      close: () => (closing ??= shutdown(container)),
    };
  } catch (error) {
    await shutdown(container).catch(() => undefined);
    throw error;
  }
}
