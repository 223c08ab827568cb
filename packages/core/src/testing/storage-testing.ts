/** Storage test kit: the in-memory storage adapters and one contract suite per storage port. */
export * from './in-memory-account-repository.js';
export * from './in-memory-api-key-repository.js';
export * from './in-memory-app-version-repository.js';
export * from './in-memory-asset-repository.js';
export * from './in-memory-run-repository.js';
export * from './in-memory-gpu-ledger.js';
export * from './in-memory-blob-store.js';
export * from './in-memory-maintenance-lease.js';
export { describeMaintenanceLeaseContract } from './maintenance-lease.contract.js';
export { describeAccountRepositoryContract } from './account-repository.contract.js';
export { describeApiKeyRepositoryContract } from './api-key-repository.contract.js';
export { describeAppVersionRepositoryContract } from './app-version-repository.contract.js';
export { describeAssetRepositoryContract } from './asset-repository.contract.js';
export { describeRunRepositoryContract, aContractRun, STORAGE_CONTRACT_PARENTS } from './run-repository.contract.js';
export { describeGpuLedgerContract } from './gpu-ledger.contract.js';
export { describeBlobStoreContract } from './blob-store.contract.js';
export * from './in-memory-idempotency-store.js';
export * from './in-memory-webhook-outbox.js';
export * from './in-memory-webhook-secrets.js';
export { describeIdempotencyStoreContract } from './idempotency-store.contract.js';
export { describeWebhookOutboxContract } from './webhook-outbox.contract.js';
export * from './in-memory-stream-slots.js';
export { describeStreamSlotsContract } from './stream-slots.contract.js';
// The pool as data.
export * from './in-memory-backend-registry.js';
export { describeBackendRegistryContract } from './backend-registry.contract.js';
export * from './in-memory-name-resolver.js';
export { describeNameResolverContract, type NameResolverFixture } from './name-resolver.contract.js';
