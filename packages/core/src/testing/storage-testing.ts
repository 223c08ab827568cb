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
