/**
 * Contract suites: one per port, run by the in-memory adapter and by every real adapter of that
 * port, so each behaves the same. They call mocha's `describe`/`it` and chai's `expect`: a project
 * that runs them needs mocha and chai (optional peers of this package); nothing else of the
 * package loads them.
 * @module
 */
export * from './timers.contract.js';
export * from './rate-limiter-contract.js';
export * from './executor.contract.js';
export * from './work-signal-contract.js';
export * from './preview-store.contract.js';
export { describeMaintenanceLeaseContract } from './maintenance-lease.contract.js';
export { describeAccountRepositoryContract } from './account-repository.contract.js';
export { describeApiKeyRepositoryContract } from './api-key-repository.contract.js';
export { describeAppVersionRepositoryContract } from './app-version-repository.contract.js';
export { describeAssetRepositoryContract } from './asset-repository.contract.js';
export { describeRunRepositoryContract, aContractRun, STORAGE_CONTRACT_PARENTS } from './run-repository.contract.js';
export { describeGpuLedgerContract } from './gpu-ledger.contract.js';
export { describeBlobStoreContract } from './blob-store.contract.js';
export { describeIdempotencyStoreContract } from './idempotency-store.contract.js';
export { describeWebhookOutboxContract } from './webhook-outbox.contract.js';
export { describeStreamSlotsContract } from './stream-slots.contract.js';
export { describeBackendRegistryContract } from './backend-registry.contract.js';
export { describeNameResolverContract, type NameResolverFixture } from './name-resolver.contract.js';
export { describeAdminTokenRepositoryContract, describeAuditLogContract } from './admin-token-repository.contract.js';
export { describeAdminQueriesContract } from './admin-queries.contract.js';
export { describeNamedLocksContract } from './named-locks.contract.js';
