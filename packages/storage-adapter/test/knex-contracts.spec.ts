/** Every storage port contract on the knex adapters: SQLite always, PostgreSQL with RUNLOAD_TEST_PG_URL. */
import type { Knex } from 'knex';
import { describeAccountRepositoryContract, describeApiKeyRepositoryContract, describeAppVersionRepositoryContract, describeAssetRepositoryContract, describeBackendRegistryContract, describeMaintenanceLeaseContract, describeNamedLocksContract, describeGpuLedgerContract, describeIdempotencyStoreContract, describeStreamSlotsContract, describeRunRepositoryContract, describeWebhookOutboxContract, STORAGE_CONTRACT_PARENTS, describeAdminTokenRepositoryContract, describeAuditLogContract, describeAdminQueriesContract } from '@runload/core/contract-tests';
import {
  KnexAccountRepository,
  KnexApiKeyRepository,
  KnexAppVersionRepository,
  KnexAssetRepository,
  KnexBackendRegistry,
  KnexMaintenanceLease,
  KnexNamedLocks,
  KnexGpuLedger,
  KnexIdempotencyStore,
  KnexStreamSlots,
  KnexRunRepository,
  KnexWebhookOutbox,
  KnexAdminTokenRepository,
  KnexAuditLog,
  insertAuditEntry,
  KnexUsageRepository,
} from '@runload/storage-adapter';
import { TEST_DATABASES, useDatabase } from './databases.js';

const T = Date.UTC(2026, 0, 1);

/** Empties every table and creates the rows the contracts point at. */
async function reset(db: Knex): Promise<Knex> {
  for (const table of ['admin_tokens', 'audit_log']) await db(table).delete();
  for (const table of ['idempotency_keys', 'webhook_outbox', 'webhook_secrets', 'event_stream_slots']) await db(table).delete();
  for (const table of ['backends', 'maintenance_leases', 'blob_locks', 'gpu_charges', 'runs', 'assets', 'api_keys', 'app_versions', 'accounts']) await db(table).delete();
  for (const id of STORAGE_CONTRACT_PARENTS.accountIds) {
    await db('accounts').insert({ id, name: 'parent', tier: 'starter', status: 'active', created_at: T });
  }
  for (const id of STORAGE_CONTRACT_PARENTS.appVersionIds) {
    const workflow = JSON.stringify(STORAGE_CONTRACT_PARENTS.appVersionWorkflows[id]);
    await db('app_versions').insert({ id, app_id: id, name: 'parent', workflow, inputs: '[]', created_at: T, deleted_at: null });
  }
  return db;
}

for (const [name, open] of TEST_DATABASES) {
  describe(`knex storage on ${name}`, function () {
    const database = useDatabase(open);
    const fresh = async () => reset(database.get().db);

    describeAccountRepositoryContract(name, async () => ({ subject: new KnexAccountRepository(await fresh()) }));
    describeApiKeyRepositoryContract(name, async () => ({ subject: new KnexApiKeyRepository(await fresh()) }));
    describeAppVersionRepositoryContract(name, async () => ({ subject: new KnexAppVersionRepository(await fresh()) }));
    describeAssetRepositoryContract(name, async () => {
      const db = await fresh();
      return { subject: new KnexAssetRepository(db), runs: new KnexRunRepository(db) };
    });
    describeRunRepositoryContract(name, async () => ({ subject: new KnexRunRepository(await fresh()) }));
    describeGpuLedgerContract(name, async () => {
      const db = await fresh();
      return { subject: new KnexGpuLedger(db), runs: new KnexRunRepository(db) };
    });
    describeIdempotencyStoreContract(name, async () => {
      const db = await fresh();
      return { subject: new KnexIdempotencyStore(db), runs: new KnexRunRepository(db) };
    });
    describeStreamSlotsContract(name, async () => ({ subject: new KnexStreamSlots(await fresh()) }));
    describeWebhookOutboxContract(name, async () => {
      const db = await fresh();
      return { subject: new KnexWebhookOutbox(db), runs: new KnexRunRepository(db) };
    });
    describeMaintenanceLeaseContract(name, async () => ({ subject: new KnexMaintenanceLease(await fresh()) }));
    describeBackendRegistryContract(name, async () => {
      const db = await fresh();
      return { subject: new KnexBackendRegistry(db), audit: new KnexAuditLog(db) };
    });
    describeAdminTokenRepositoryContract(name, async () => {
      const db = await fresh();
      return { subject: new KnexAdminTokenRepository(db), audit: new KnexAuditLog(db) };
    });
    describeAdminQueriesContract(name, async () => {
      const db = await fresh();
      return { accounts: new KnexAccountRepository(db), runs: new KnexRunRepository(db), ledger: new KnexGpuLedger(db), usage: new KnexUsageRepository(db) };
    });
    describeAuditLogContract(name, async () => {
      const db = await fresh();
      return { subject: new KnexAuditLog(db), record: (entry) => insertAuditEntry(db, entry) };
    });
    describeNamedLocksContract(name, async () => {
      const db = await fresh();
      return { subject: new KnexNamedLocks(db), another: new KnexNamedLocks(database.get().another()) };
    });
  });
}
