/**
 * The storage adapter as an inversify module: the database (opened and migrated when first
 * resolved) and every repository on it, the integrations' stores and the maintenance lease
 * included. The module owns its teardown: the database, once opened, is registered with the
 * container's `Teardown` (bound to `TEARDOWN`), which destroys it after everything started later.
 * Load it with `container.load(storageModule(config))` and resolve with `getAsync`.
 * @module
 */
import { ContainerModule } from 'inversify';
import {
  ACCOUNT_REPOSITORY,
  API_KEY_REPOSITORY,
  APP_VERSION_REPOSITORY,
  ASSET_REPOSITORY,
  BACKEND_REGISTRY,
  BLOB_STORE,
  GPU_LEDGER,
  IDEMPOTENCY_STORE,
  MAINTENANCE_LEASE,
  NAMED_LOCKS,
  RUN_REPOSITORY,
  ADMIN_TOKEN_REPOSITORY,
  AUDIT_LOG,
  STREAM_SLOTS,
  stopAtTeardown,
  USAGE_REPOSITORY,
  WEBHOOK_OUTBOX,
  WEBHOOK_SECRET_REPOSITORY,
} from '@runload/core';
import { InProcessNamedLocks } from '@runload/core/in-process';
import type { Knex } from 'knex';
import { KnexAccountRepository } from './knex-account-repository.js';
import { KnexApiKeyRepository } from './knex-api-key-repository.js';
import { KnexAppVersionRepository } from './knex-app-version-repository.js';
import { KnexAssetRepository } from './knex-asset-repository.js';
import { KnexBackendRegistry } from './knex-backend-registry.js';
import { KnexGpuLedger } from './knex-gpu-ledger.js';
import { KnexNamedLocks } from './knex-named-locks.js';
import { KnexRunRepository } from './knex-run-repository.js';
import { LocalBlobStore } from './local-blob-store.js';
import { KnexAdminTokenRepository } from './knex-admin-token-repository.js';
import { KnexAuditLog } from './knex-audit-log.js';
import { KnexUsageRepository } from './knex-usage-repository.js';
import { KnexIdempotencyStore } from './knex-idempotency-store.js';
import { KnexMaintenanceLease } from './knex-maintenance-lease.js';
import { KnexStreamSlots } from './knex-stream-slots.js';
import { KnexWebhookOutbox } from './knex-webhook-outbox.js';
import { KnexWebhookSecrets } from './knex-webhook-secrets.js';
import { migrate } from './migrations.js';
import { dialectOf, openDatabase, type DatabaseConfig } from './open-database.js';

/** The open, migrated knex instance. */
export const DATABASE = Symbol.for('runload.storage.Database');

async function openMigrated(config: DatabaseConfig): Promise<Knex> {
  const db = openDatabase(config);
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

export function storageModule(config: DatabaseConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<Knex>(DATABASE)
      .toResolvedValue(() => openMigrated(config))
      .inSingletonScope()
      .onActivation(stopAtTeardown('database', (db: Knex) => db.destroy()));
    const repository = <T>(token: symbol, make: (db: Knex) => T) =>
      bind<T>(token).toResolvedValue(make, [DATABASE]).inSingletonScope();
    repository(ACCOUNT_REPOSITORY, (db) => new KnexAccountRepository(db));
    repository(API_KEY_REPOSITORY, (db) => new KnexApiKeyRepository(db));
    repository(APP_VERSION_REPOSITORY, (db) => new KnexAppVersionRepository(db));
    repository(ASSET_REPOSITORY, (db) => new KnexAssetRepository(db));
    repository(RUN_REPOSITORY, (db) => new KnexRunRepository(db));
    repository(GPU_LEDGER, (db) => new KnexGpuLedger(db));
    // The pool as data.
    repository(BACKEND_REGISTRY, (db) => new KnexBackendRegistry(db));
    repository(ADMIN_TOKEN_REPOSITORY, (db) => new KnexAdminTokenRepository(db));
    repository(AUDIT_LOG, (db) => new KnexAuditLog(db));
    repository(USAGE_REPOSITORY, (db) => new KnexUsageRepository(db));
    // One SQLite file serves one process: its locks need not cost a write each.
    repository(NAMED_LOCKS, (db) => (dialectOf(db) === 'postgres' ? new KnexNamedLocks(db) : new InProcessNamedLocks()));
    repository(MAINTENANCE_LEASE, (db) => new KnexMaintenanceLease(db));
    // Integrations: idempotency keys, the webhook outbox and secrets, the stream slots.
    repository(IDEMPOTENCY_STORE, (db) => new KnexIdempotencyStore(db));
    repository(WEBHOOK_OUTBOX, (db) => new KnexWebhookOutbox(db));
    repository(WEBHOOK_SECRET_REPOSITORY, (db) => new KnexWebhookSecrets(db));
    repository(STREAM_SLOTS, (db) => new KnexStreamSlots(db));
  });
}

/** Blobs in a directory (the data directory's `blobs/` for the server); nothing to close. */
export function localBlobStoreModule(directory: string): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(BLOB_STORE).toConstantValue(new LocalBlobStore(directory));
  });
}
