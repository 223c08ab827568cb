/**
 * A running runload, resolved from the container: the database opened and migrated, the
 * dispatcher started (for the server), and a close that stops it all in order. The CLI and the
 * server both start here.
 * @module
 */
import type { Container } from 'inversify';
import type { Executor, RunloadApi } from '@runload/core';
import type { RunningHttpServer } from '@runload/http-adapter';
import type { Database } from '@runload/storage-adapter';
import type { RunloadConfig } from './config.js';
import { buildContainer, type ContainerOptions } from './container.js';
import { shutdown } from './shutdown.js';
import { DISPATCHER, INTEGRATIONS, POOL_FOLLOWER, RETENTION_SWEEP, RUNTIME } from './tokens.js';

export { ABANDONED_STAGING_MS } from './retention-module.js';

export type RuntimeOptions = ContainerOptions;

export type HealthReport = {
  readonly ok: boolean;
  readonly database: { ok: boolean; detail?: string };
  readonly limiter: { mode: string };
  readonly backends: { available: boolean; backends: readonly unknown[] };
  readonly dispatcher: { running: boolean; in_flight: number };
};

export interface Runtime {
  readonly api: RunloadApi;
  readonly container: Container;
  readonly db: Database;
  readonly executor: Executor;
  /** Formidable's scratch directory, inside the data directory. */
  readonly uploadDir: string;
  health(): Promise<HealthReport>;
  /** Starts the HTTP server where the configuration says (once; later calls return the same server). */
  listen(): Promise<RunningHttpServer>;
  close(): Promise<void>;
}

export async function openRuntime(config: RunloadConfig, options: RuntimeOptions): Promise<Runtime> {
  const container = buildContainer(config, options);
  try {
    const runtime = await container.getAsync<Runtime>(RUNTIME);
    if (options.dispatch) {
      // The pool before the dispatcher: its first claims see every backend of the registry.
      await container.getAsync(POOL_FOLLOWER);
      await container.getAsync(RETENTION_SWEEP);
      await container.getAsync(DISPATCHER);
      await container.getAsync(INTEGRATIONS);
    }
    return runtime;
  } catch (error) {
    await shutdown(container).catch(() => undefined);
    throw error;
  }
}
