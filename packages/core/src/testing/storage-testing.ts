/** Storage test kit: the in-memory storage adapters (their contract suites are in `@runload/core/contract-tests`). */
export * from './in-memory-account-repository.js';
export * from './in-memory-api-key-repository.js';
export * from './in-memory-app-version-repository.js';
export * from './in-memory-asset-repository.js';
export * from './in-memory-run-repository.js';
export * from './in-memory-gpu-ledger.js';
export * from './in-memory-blob-store.js';
export * from './in-memory-maintenance-lease.js';
export * from './in-memory-idempotency-store.js';
export * from './in-memory-webhook-outbox.js';
export * from './in-memory-webhook-secrets.js';
export * from './in-memory-stream-slots.js';
// The pool as data.
export * from './in-memory-backend-registry.js';
export * from './in-memory-name-resolver.js';
export * from './in-memory-audit-log.js';
export * from './in-memory-admin-token-repository.js';
export * from './in-memory-usage-repository.js';
