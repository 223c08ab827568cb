/**
 * Every port in memory: for unit tests and for embedding runload without I/O.
 * `createRunloadApi(createInMemoryPorts(), DEFAULT_LIMITS)` is a complete, working API.
 * @module
 */
import type { Executor } from '../ports/executor.js';
import type { NodeCatalog } from '../ports/node-catalog.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import { RandomIds } from '../system/random-ids.js';
import { SystemClock } from '../system/system-clock.js';
import type { RunloadPorts } from '../use-cases/runload-api.js';
import { InMemoryAccountRepository } from './in-memory-account-repository.js';
import { InMemoryApiKeyRepository } from './in-memory-api-key-repository.js';
import { InMemoryAppVersionRepository } from './in-memory-app-version-repository.js';
import { InMemoryAssetRepository } from './in-memory-asset-repository.js';
import { InMemoryBlobStore } from './in-memory-blob-store.js';
import { InMemoryExecutor } from './in-memory-executor.js';
import { InMemoryGpuLedger } from './in-memory-gpu-ledger.js';
import { InMemoryRateLimiter } from '../in-process/in-memory-rate-limiter.js';
import { InMemoryRunRepository } from './in-memory-run-repository.js';
import { InMemoryWorkSignal } from '../in-process/in-memory-work-signal.js';
import { InProcessNamedLocks } from '../in-process/in-process-named-locks.js';
import { MagicBytesDetector } from './magic-bytes-detector.js';
import { InMemoryIdempotencyStore } from './in-memory-idempotency-store.js';
import { InMemoryWebhookOutbox } from './in-memory-webhook-outbox.js';
import { InMemoryWebhookSecrets } from './in-memory-webhook-secrets.js';
import { InMemoryWebhookTransport } from './in-memory-webhook-transport.js';
import { InMemoryStreamSlots } from './in-memory-stream-slots.js';
import { InMemoryPreviewStore } from '../in-process/in-memory-preview-store.js';
import { InMemoryBackendRegistry } from './in-memory-backend-registry.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import { StaticNodeCatalog } from './static-node-catalog.js';
import { InMemoryAuditLog } from './in-memory-audit-log.js';
import { InMemoryAdminTokenRepository } from './in-memory-admin-token-repository.js';
import { InMemoryUsageRepository } from './in-memory-usage-repository.js';

export interface InMemoryPortsOptions {
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly executor?: Executor;
  readonly nodeCatalog?: NodeCatalog;
  readonly webhookTransport?: WebhookTransport;
}

/** Ports whose concrete in-memory types stay visible, so tests can reach into them. */
export type InMemoryPorts = RunloadPorts & {
  readonly accounts: InMemoryAccountRepository;
  readonly runs: InMemoryRunRepository;
  readonly assets: InMemoryAssetRepository;
  readonly blobs: InMemoryBlobStore;
  readonly gpuLedger: InMemoryGpuLedger;
  readonly limiter: InMemoryRateLimiter;
  readonly webhookOutbox: InMemoryWebhookOutbox;
  readonly auditLog: InMemoryAuditLog;
};

export function createInMemoryPorts(options: InMemoryPortsOptions = {}): InMemoryPorts {
  const clock = options.clock ?? new SystemClock();
  const auditLog = new InMemoryAuditLog();
  const appVersions = new InMemoryAppVersionRepository(auditLog);
  const runs = new InMemoryRunRepository(auditLog, (id) => appVersions.workflowOf(id));
  const accounts = new InMemoryAccountRepository(auditLog);
  const gpuLedger = new InMemoryGpuLedger(runs);
  return {
    accounts,
    apiKeys: new InMemoryApiKeyRepository(auditLog),
    appVersions,
    assets: new InMemoryAssetRepository(runs),
    runs,
    blobs: new InMemoryBlobStore(),
    mediaTypes: new MagicBytesDetector(),
    limiter: new InMemoryRateLimiter(clock),
    gpuLedger,
    executor: options.executor ?? new InMemoryExecutor(),
    nodeCatalog: options.nodeCatalog ?? new StaticNodeCatalog(),
    workSignal: new InMemoryWorkSignal(),
    clock,
    ids: options.ids ?? new RandomIds(),
    idempotency: new InMemoryIdempotencyStore(runs),
    webhookOutbox: new InMemoryWebhookOutbox(runs),
    webhookSecrets: new InMemoryWebhookSecrets(),
    webhookTransport: options.webhookTransport ?? new InMemoryWebhookTransport(),
    streamSlots: new InMemoryStreamSlots(),
    previews: new InMemoryPreviewStore(clock),
    backends: new InMemoryBackendRegistry(auditLog),
    adminTokens: new InMemoryAdminTokenRepository(auditLog),
    auditLog,
    usage: new InMemoryUsageRepository(accounts, runs, gpuLedger),
    locks: new InProcessNamedLocks(),
  };
}
