/**
 * @runload/core: the domain of runload and its ports. No I/O, no framework.
 * In-memory adapters are exported from `@runload/core/testing`, the contract suites from
 * `@runload/core/contract-tests`.
 * @module
 */
export * from './domain/errors.js';
export * from './domain/tier.js';
export * from './domain/account.js';
export * from './domain/api-key.js';
export * from './domain/app-version.js';
export * from './domain/asset.js';
export * from './domain/run.js';
export * from './domain/run-change.js';
export * from './domain/limits.js';
export * from './domain/limit-window.js';
export * from './domain/workflow.js';
export * from './domain/output-nodes.js';
export * from './domain/fair-share.js';
export * from './domain/input-validation.js';

export * from './ports/clock.js';
export * from './ports/timers.js';
export * from './ports/id-generator.js';
export * from './ports/account-repository.js';
export * from './ports/api-key-repository.js';
export * from './ports/app-version-repository.js';
export * from './ports/asset-repository.js';
export * from './ports/maintenance-lease.js';
export * from './ports/named-locks.js';
export * from './ports/run-repository.js';
export * from './ports/blob-store.js';
export * from './ports/media-type-detector.js';
export * from './ports/rate-limiter.js';
export * from './ports/gpu-ledger.js';
export * from './ports/executor.js';
export * from './ports/node-catalog.js';
export * from './ports/work-signal.js';
export * from './ports/logger.js';
export * from './ports/idempotency-store.js';
export * from './ports/webhook-outbox.js';
export * from './ports/webhook-secret-repository.js';
export * from './ports/webhook-transport.js';
export * from './ports/stream-slots.js';

// Live previews.
export * from './ports/preview-store.js';
export * from './use-cases/record-previews.js';
export * from './use-cases/run-previews.js';

export * from './domain/webhook.js';
export * from './domain/webhook-delivery.js';

export * from './system/system-clock.js';
export * from './system/system-timers.js';
export * from './system/pump.js';
export * from './system/map-at-most.js';
export * from './system/random-ids.js';
export * from './system/teardown.js';

export * from './domain/run-request.js';
export * from './use-cases/principal.js';
export * from './use-cases/authenticate.js';
export * from './use-cases/consume-general-limit.js';
export * from './use-cases/run-admission.js';
export * from './use-cases/create-run.js';
export * from './use-cases/get-run.js';
export * from './use-cases/list-runs.js';
export * from './use-cases/list-apps.js';
export * from './use-cases/cancel-run.js';
export * from './use-cases/upload-asset.js';
export * from './use-cases/get-asset.js';
export * from './use-cases/list-assets.js';
export * from './use-cases/delete-asset.js';
export * from './use-cases/sweep-expired-assets.js';
export * from './use-cases/remove-abandoned-assets.js';
export * from './use-cases/describe-app-version.js';
export * from './use-cases/run-workflows.js';
export * from './use-cases/recently-used.js';
export * from './use-cases/get-account-overview.js';
export * from './use-cases/require-live-app-version.js';
export * from './use-cases/admin/manage-accounts.js';
export * from './use-cases/admin/manage-api-keys.js';
export * from './use-cases/admin/manage-apps.js';
export * from './use-cases/runload-api.js';
export * from './domain/run-cursor.js';
export * from './domain/output-asset-id.js';
export * from './use-cases/run-lifecycle.js';
export * from './use-cases/dispatcher.js';
export * from './use-cases/create-dispatcher.js';
export { aheadWindow, DEFAULT_AHEAD_LEAD_MS, ExpectedHolds, type AheadWindow, type ExpectedHold, type HeldRun } from './use-cases/dispatch/ahead-timing.js';
export * from './use-cases/placement.js';
export * from './use-cases/build-execution-job.js';
export * from './use-cases/idempotent-requests.js';
export * from './use-cases/webhook-worker.js';
export * from './use-cases/run-streams.js';
export * from './use-cases/admin/manage-webhook-secrets.js';
export * from './system/webhook-secret.js';

// The pool as data.
export * from './domain/backend.js';
export * from './ports/backend-registry.js';
export * from './use-cases/pool/manage-backends.js';
export * from './use-cases/pool/pool-follower.js';
export * from './use-cases/pool/dns-discovery.js';
export * from './use-cases/pool/pool-overview.js';
export * from './ports/name-resolver.js';
// The admin API: admin tokens, their authentication and scopes, the audit trail.
export * from './domain/admin-token.js';
export * from './domain/audit.js';
export * from './ports/admin-token-repository.js';
export * from './ports/audit-log.js';
export * from './use-cases/authenticate-admin.js';
export * from './use-cases/admin/manage-admin-tokens.js';
export * from './ports/usage-repository.js';
export * from './use-cases/admin/support-runs.js';
export * from './use-cases/admin/monthly-usage.js';
export * from './use-cases/admin/audit-trail.js';
// Raw graphs and content by hash (the Comfy API v2).
export * from './domain/canonical-json.js';
export * from './domain/submitted-graph.js';
export * from './domain/node-problems.js';
export * from './use-cases/content-by-hash.js';
export * from './use-cases/submit-graph.js';
export * from './use-cases/fill-blake3.js';
