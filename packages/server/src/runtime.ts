/**
 * A running runload: the database opened and migrated, the container built, and what must be
 * closed when it stops. The CLI and the server both start here.
 * @module
 */
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Container } from 'inversify';
import type { Database as Knex } from '@runload/storage-adapter';
import { EXECUTOR, RUNLOAD_API, type Clock, type Executor, type RunloadApi } from '@runload/core';
import { UnavailableExecutor } from '@runload/core/testing';
import { BuiltinNodeCatalog } from '@runload/gpu-adapter';
import { checkDatabase, migrate, openDatabase } from '@runload/storage-adapter';
import type { RunloadConfig } from './config.js';
import { buildContainer } from './container.js';

export interface RuntimeOptions {
  /** Start the dispatcher that sends runs to the backends (the server does; the CLI does not). */
  readonly dispatch: boolean;
  /** Tests replace the clock to control limit windows. */
  readonly clock?: Clock;
  /** Tests and embedders may bring their own executor. */
  readonly executor?: Executor;
}

export type HealthReport = {
  readonly ok: boolean;
  readonly database: { ok: boolean; detail?: string };
  readonly limiter: { mode: string };
  readonly backends: { available: boolean; backends: readonly unknown[] };
};

export interface Runtime {
  readonly api: RunloadApi;
  readonly container: Container;
  readonly db: Knex;
  /** Formidable's scratch directory, inside the data directory. */
  readonly uploadDir: string;
  health(): Promise<HealthReport>;
  close(): Promise<void>;
}

export async function openRuntime(config: RunloadConfig, options: RuntimeOptions): Promise<Runtime> {
  const db = openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const uploadDir = path.join(config.dataDir, 'uploads');
  mkdirSync(uploadDir, { recursive: true });
  const executor = options.executor ?? new UnavailableExecutor(`no ComfyUI executor for ${config.comfyUiUrls.join(', ')}`);
  const container = buildContainer(config, {
    db,
    executor,
    nodeCatalog: new BuiltinNodeCatalog(),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const api = container.get<RunloadApi>(RUNLOAD_API);
  return {
    api,
    container,
    db,
    uploadDir,
    async health() {
      const [database, backends] = await Promise.all([checkDatabase(db), container.get<Executor>(EXECUTOR).health()]);
      return { ok: database.ok, database, limiter: { mode: 'in-process' }, backends };
    },
    async close() {
      await db.destroy();
    },
  };
}
