/**
 * The public API of runload as use cases, wired from ports. The HTTP adapter serves it; an
 * embedding service can call it directly.
 * @module
 */
import type { LimitsConfig } from '../domain/limits.js';
import type { AccountRepository } from '../ports/account-repository.js';
import type { ApiKeyRepository } from '../ports/api-key-repository.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Clock } from '../ports/clock.js';
import type { Executor } from '../ports/executor.js';
import type { GpuLedger } from '../ports/gpu-ledger.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { MediaTypeDetector } from '../ports/media-type-detector.js';
import type { NodeCatalog } from '../ports/node-catalog.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { RunRepository } from '../ports/run-repository.js';
import type { WorkSignal } from '../ports/work-signal.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import type { WebhookSecretRepository } from '../ports/webhook-secret-repository.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import { ManageWebhookSecrets } from './admin/manage-webhook-secrets.js';
import { IdempotentRequests } from './idempotent-requests.js';
import type { StreamSlots } from '../ports/stream-slots.js';
import type { NamedLocks } from '../ports/named-locks.js';
import { InProcessNamedLocks } from '../in-process/in-process-named-locks.js';
import { RunStreams } from './run-streams.js';
import type { PreviewStore } from '../ports/preview-store.js';
import { RunPreviews } from './run-previews.js';
import { ManageAccounts } from './admin/manage-accounts.js';
import { ManageApiKeys } from './admin/manage-api-keys.js';
import { ManageApps } from './admin/manage-apps.js';
import { Authenticate } from './authenticate.js';
import { CancelRun } from './cancel-run.js';
import { ConsumeGeneralLimit } from './consume-general-limit.js';
import { CreateRun } from './create-run.js';
import { DescribeAppVersion } from './describe-app-version.js';
import { RunWorkflows } from './run-workflows.js';
import { GetAccountOverview } from './get-account-overview.js';
import { DeleteAsset } from './delete-asset.js';
import { GetAsset } from './get-asset.js';
import { ListAssets } from './list-assets.js';
import { GetRun } from './get-run.js';
import { ListApps } from './list-apps.js';
import { ListRuns } from './list-runs.js';
import { RunAdmission } from './run-admission.js';
import { RecentAppVersions } from './recent-app-versions.js';
import { UploadAsset } from './upload-asset.js';
import type { BackendRegistry } from '../ports/backend-registry.js';
import { ManageBackends } from './pool/manage-backends.js';
import { PoolOverview } from './pool/pool-overview.js';
import type { AdminTokenRepository } from '../ports/admin-token-repository.js';
import type { AuditLog } from '../ports/audit-log.js';
import { AuthenticateAdmin } from './authenticate-admin.js';
import { ManageAdminTokens } from './admin/manage-admin-tokens.js';
import type { UsageRepository } from '../ports/usage-repository.js';
import { SupportRuns } from './admin/support-runs.js';
import { MonthlyUsage } from './admin/monthly-usage.js';
import { AuditTrail } from './admin/audit-trail.js';
import { SubmitGraph } from './submit-graph.js';
import { ContentByHash } from './content-by-hash.js';
import { FillBlake3 } from './fill-blake3.js';

/** Every port the use cases need. */
export interface RunloadPorts {
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly appVersions: AppVersionRepository;
  readonly assets: AssetRepository;
  readonly runs: RunRepository;
  readonly blobs: BlobStore;
  readonly mediaTypes: MediaTypeDetector;
  readonly limiter: RateLimiter;
  readonly gpuLedger: GpuLedger;
  readonly executor: Executor;
  readonly nodeCatalog: NodeCatalog;
  readonly workSignal: WorkSignal;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  // Integrations: idempotency keys and webhooks.
  readonly idempotency: IdempotencyStore;
  readonly webhookOutbox: WebhookOutbox;
  readonly webhookSecrets: WebhookSecretRepository;
  readonly webhookTransport: WebhookTransport;
  readonly streamSlots: StreamSlots;
  // Live previews.
  readonly previews: PreviewStore;
  // The pool as data.
  readonly backends: BackendRegistry;
  // The admin API.
  readonly adminTokens: AdminTokenRepository;
  readonly auditLog: AuditLog;
  readonly usage: UsageRepository;
  /**
   * One account's run admission at a time, on every instance that shares the storage. Absent: the
   * locks of this process, which hold only where one process serves the storage (SQLite).
   */
  readonly locks?: NamedLocks;
}

export interface RunloadApi {
  readonly limits: LimitsConfig;
  readonly authenticate: Authenticate;
  readonly generalLimit: ConsumeGeneralLimit;
  readonly runAdmission: RunAdmission;
  readonly createRun: CreateRun;
  readonly getRun: GetRun;
  readonly runWorkflows: RunWorkflows;
  readonly listRuns: ListRuns;
  readonly cancelRun: CancelRun;
  readonly uploadAsset: UploadAsset;
  readonly getAsset: GetAsset;
  readonly listAssets: ListAssets;
  readonly deleteAsset: DeleteAsset;
  readonly describeAppVersion: DescribeAppVersion;
  readonly listApps: ListApps;
  readonly accountOverview: GetAccountOverview;
  readonly accounts: ManageAccounts;
  readonly apiKeys: ManageApiKeys;
  readonly apps: ManageApps;
  readonly idempotency: IdempotentRequests;
  readonly webhookSecrets: ManageWebhookSecrets;
  readonly runStreams: RunStreams;
  readonly runPreviews: RunPreviews;
  // The pool as data.
  readonly backends: ManageBackends;
  readonly poolOverview: PoolOverview;
  // The admin API.
  readonly authenticateAdmin: AuthenticateAdmin;
  readonly adminTokens: ManageAdminTokens;
  readonly supportRuns: SupportRuns;
  readonly usage: MonthlyUsage;
  readonly audit: AuditTrail;
  // Raw graphs and content by hash (the Comfy API v2).
  readonly submitGraph: SubmitGraph;
  readonly contentByHash: ContentByHash;
  readonly fillBlake3: FillBlake3;
}

export const RUNLOAD_API = Symbol.for('runload.core.RunloadApi');

export function createRunloadApi(p: RunloadPorts, limits: LimitsConfig): RunloadApi {
  const runAdmission = new RunAdmission(p.limiter, p.gpuLedger, p.runs, p.clock, limits, p.locks ?? new InProcessNamedLocks());
  const appVersions = new RecentAppVersions(p.appVersions, p.clock);
  const runWorkflows = new RunWorkflows(appVersions);
  const getAsset = new GetAsset(p.assets, p.blobs, p.clock);
  const cancelRun = new CancelRun(p.runs, p.workSignal, p.clock, p.ids);
  const createRun = new CreateRun(appVersions, p.assets, p.runs, p.executor, runAdmission, p.workSignal, p.clock, p.ids, p.idempotency, p.webhookTransport, limits.retention);
  return {
    limits,
    authenticate: new Authenticate(p.apiKeys, p.accounts, p.limiter, limits, p.clock),
    generalLimit: new ConsumeGeneralLimit(p.limiter, limits),
    runAdmission,
    createRun,
    getRun: new GetRun(p.runs),
    listRuns: new ListRuns(p.runs),
    cancelRun,
    uploadAsset: new UploadAsset(p.blobs, p.mediaTypes, p.assets, p.clock, p.ids, limits.retention),
    getAsset,
    listAssets: new ListAssets(p.assets, p.clock),
    deleteAsset: new DeleteAsset(p.assets, p.blobs, getAsset),
    describeAppVersion: new DescribeAppVersion(appVersions),
    runWorkflows,
    listApps: new ListApps(appVersions),
    accountOverview: new GetAccountOverview(runAdmission, limits),
    accounts: new ManageAccounts(p.accounts, p.clock, p.ids, limits, p.usage, runAdmission),
    apiKeys: new ManageApiKeys(p.apiKeys, p.accounts, p.clock, p.ids),
    apps: new ManageApps(appVersions, p.nodeCatalog, p.clock, p.ids),
    idempotency: new IdempotentRequests(p.idempotency, p.clock),
    webhookSecrets: new ManageWebhookSecrets(p.accounts, p.webhookSecrets, p.clock),
    runStreams: new RunStreams(p.runs, p.streamSlots, p.workSignal, p.clock, p.ids, { previews: p.previews }),
    runPreviews: new RunPreviews(p.runs, p.previews),
    ...poolUseCases(p, runWorkflows),
    authenticateAdmin: new AuthenticateAdmin(p.adminTokens, p.limiter, limits, p.clock),
    adminTokens: new ManageAdminTokens(p.adminTokens, p.clock, p.ids),
    supportRuns: new SupportRuns(p.runs, cancelRun),
    usage: new MonthlyUsage(p.usage),
    audit: new AuditTrail(p.auditLog),
    submitGraph: new SubmitGraph(appVersions, p.assets, p.nodeCatalog, p.executor, createRun, p.clock, p.ids, limits),
    contentByHash: new ContentByHash(p.assets, p.blobs, p.clock, p.ids, limits.retention),
    fillBlake3: new FillBlake3(p.assets, p.blobs),
  };
}

/** The pool's use cases on the ports. */
function poolUseCases(p: RunloadPorts, runWorkflows: RunWorkflows): Pick<RunloadApi, 'backends' | 'poolOverview'> {
  const backends = new ManageBackends(p.backends, p.runs, p.clock, p.ids);
  return { backends, poolOverview: new PoolOverview(backends, p.runs, p.executor, runWorkflows) };
}
