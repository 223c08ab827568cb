/**
 * The admin API client, for a billing site or a support tool: accounts, keys, apps, runs of any
 * account, monthly usage (JSON or CSV), the audit trail and the pool of backends, behind an admin token `rladm_…`.
 * Failures are RunloadErrors, 429 and 503 retried as the account client does.
 * @module
 */
import type {
  AddBackendBody,
  AdminAccount,
  AdminAccountDetail,
  AdminAccountList,
  AdminAppList,
  AdminAppVersion,
  AdminKeyList,
  AdminRun,
  AdminRunList,
  AuditList,
  Backend,
  BackendList,
  ChangeBackendBody,
  IssuedKey,
  PoolReport,
  RegisterBackendBody,
  RunStatus,
  TierList,
  UsageReport,
} from '@runload/api-schema';
import { pageQuery, type PageOptions } from './client.js';
import { callSettings, sendCall, type Call, type CallSettings, type RetryOptions } from './http-call.js';

export interface RunloadAdminClientOptions {
  /** Where runload listens (the `/api/v1/admin` prefix is added). */
  readonly baseUrl: string;
  /** `rladm_<prefix>_<secret>`, made with `runload admin-tokens create`. */
  readonly adminToken: string;
  readonly fetch?: typeof fetch;
  readonly retry?: RetryOptions | false;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface AccountChange {
  readonly name?: string;
  readonly tier?: string;
  readonly status?: 'active' | 'suspended';
}

export interface PublishApp {
  readonly name: string;
  /** A ComfyUI workflow in API format. */
  readonly workflow: Record<string, unknown>;
  readonly appId?: string;
  readonly expose?: readonly string[];
}

const id = (value: string) => encodeURIComponent(value);

export class RunloadAdminClient {
  private readonly settings: CallSettings;

  constructor(options: RunloadAdminClientOptions) {
    this.settings = callSettings(options.baseUrl, options.adminToken, options);
  }

  listTiers(signal?: AbortSignal): Promise<TierList> {
    return this.json({ method: 'GET', path: '/tiers', signal });
  }

  createAccount(name: string, tier: string, signal?: AbortSignal): Promise<AdminAccount> {
    return this.json({ method: 'POST', path: '/accounts', json: { name, tier }, signal });
  }

  listAccounts(options: PageOptions & { tier?: string; status?: 'active' | 'suspended' } = {}): Promise<AdminAccountList> {
    return this.json({ method: 'GET', path: `/accounts${pageQuery(options, { tier: options.tier, status: options.status })}`, signal: options.signal });
  }

  getAccount(accountId: string, signal?: AbortSignal): Promise<AdminAccountDetail> {
    return this.json({ method: 'GET', path: `/accounts/${id(accountId)}`, signal });
  }

  /** Renames, changes the tier, suspends or reactivates; effective on every instance within a second. */
  updateAccount(accountId: string, change: AccountChange, signal?: AbortSignal): Promise<AdminAccount> {
    return this.json({ method: 'PATCH', path: `/accounts/${id(accountId)}`, json: change, signal });
  }

  suspendAccount(accountId: string, signal?: AbortSignal): Promise<AdminAccount> {
    return this.updateAccount(accountId, { status: 'suspended' }, signal);
  }

  /** A new API key; its secret (`api_key`) is in this answer only. */
  createKey(accountId: string, options: { name?: string; signal?: AbortSignal } = {}): Promise<IssuedKey> {
    return this.json({ method: 'POST', path: `/accounts/${id(accountId)}/keys`, json: options.name !== undefined ? { name: options.name } : {}, signal: options.signal });
  }

  listKeys(accountId: string, signal?: AbortSignal): Promise<AdminKeyList> {
    return this.json({ method: 'GET', path: `/accounts/${id(accountId)}/keys`, signal });
  }

  async revokeKey(keyId: string, signal?: AbortSignal): Promise<void> {
    await this.send({ method: 'DELETE', path: `/keys/${id(keyId)}`, signal });
  }

  publishApp(app: PublishApp, signal?: AbortSignal): Promise<AdminAppVersion> {
    const body = { name: app.name, workflow: app.workflow, ...(app.appId !== undefined ? { app_id: app.appId } : {}), ...(app.expose !== undefined ? { expose: app.expose } : {}) };
    return this.json({ method: 'POST', path: '/apps', json: body, signal });
  }

  listApps(options: PageOptions & { includeDeleted?: boolean } = {}): Promise<AdminAppList> {
    return this.json({ method: 'GET', path: `/apps${pageQuery(options, { include_deleted: options.includeDeleted ? 'true' : undefined })}`, signal: options.signal });
  }

  async deleteApp(appVersionId: string, signal?: AbortSignal): Promise<void> {
    await this.send({ method: 'DELETE', path: `/apps/${id(appVersionId)}`, signal });
  }

  listRuns(options: PageOptions & { accountId?: string; status?: RunStatus } = {}): Promise<AdminRunList> {
    return this.json({ method: 'GET', path: `/runs${pageQuery(options, { account_id: options.accountId, status: options.status })}`, signal: options.signal });
  }

  getRun(runId: string, signal?: AbortSignal): Promise<AdminRun> {
    return this.json({ method: 'GET', path: `/runs/${id(runId)}`, signal });
  }

  cancelRun(runId: string, signal?: AbortSignal): Promise<AdminRun> {
    return this.json({ method: 'POST', path: `/runs/${id(runId)}/cancel`, signal });
  }

  /** A month's (`YYYY-MM`, UTC) GPU-seconds and ended runs per account. */
  usage(month: string, options: PageOptions = {}): Promise<UsageReport> {
    return this.json({ method: 'GET', path: `/usage${pageQuery(options, { month })}`, signal: options.signal });
  }

  /** The same page as CSV for a billing import, and the cursor of the next page (null on the last). */
  async usageCsv(month: string, options: PageOptions = {}): Promise<{ csv: string; nextCursor: string | null }> {
    const response = await this.send({ method: 'GET', path: `/usage${pageQuery(options, { month })}`, headers: { Accept: 'text/csv' }, signal: options.signal });
    return { csv: await response.text(), nextCursor: response.headers.get('x-next-cursor') };
  }

  audit(options: PageOptions = {}): Promise<AuditList> {
    return this.json({ method: 'GET', path: `/audit${pageQuery(options)}`, signal: options.signal });
  }

  // The pool of ComfyUI backends (scope `backends`; registration `backends:register`).

  listBackends(signal?: AbortSignal): Promise<BackendList> {
    return this.json({ method: 'GET', path: '/backends', signal });
  }

  getBackend(backendId: string, signal?: AbortSignal): Promise<Backend> {
    return this.json({ method: 'GET', path: `/backends/${id(backendId)}`, signal });
  }

  /** An operator's backend (source `api`); its `auth` is stored and never shown again. */
  addBackend(backend: AddBackendBody, signal?: AbortSignal): Promise<Backend> {
    return this.json({ method: 'POST', path: '/backends', json: backend, signal });
  }

  /** Drains or activates it, changes its labels or its depth (null: the deployment's). */
  changeBackend(backendId: string, change: ChangeBackendBody, signal?: AbortSignal): Promise<Backend> {
    return this.json({ method: 'PATCH', path: `/backends/${id(backendId)}`, json: change, signal });
  }

  /** No new prompt goes to it; it becomes `drained` once it holds nothing. */
  drainBackend(backendId: string, signal?: AbortSignal): Promise<Backend> {
    return this.changeBackend(backendId, { state: 'draining' }, signal);
  }

  activateBackend(backendId: string, signal?: AbortSignal): Promise<Backend> {
    return this.changeBackend(backendId, { state: 'active' }, signal);
  }

  /** Refused with BACKEND_BUSY while it holds runs, unless `force` (its runs are then dispatched again). */
  async removeBackend(backendId: string, options: { force?: boolean; signal?: AbortSignal } = {}): Promise<void> {
    await this.send({ method: 'DELETE', path: `/backends/${id(backendId)}${options.force ? '?force=true' : ''}`, signal: options.signal });
  }

  /** A GPU machine registers itself or renews its lease (the heartbeat); `created` is false on a renewal. */
  async registerBackend(registration: RegisterBackendBody, signal?: AbortSignal): Promise<{ backend: Backend; created: boolean }> {
    const response = await this.send({ method: 'POST', path: '/backends/register', json: registration, signal });
    return { backend: (await response.json()) as Backend, created: response.status === 201 };
  }

  /** The machine leaves: drained, then removed once it holds nothing. */
  deregisterBackend(url: string, signal?: AbortSignal): Promise<Backend> {
    return this.json({ method: 'DELETE', path: `/backends/register?url=${encodeURIComponent(url)}`, signal });
  }

  /** The pool at a glance: its backends, the runs queued and running, and why waiting runs wait. */
  pool(signal?: AbortSignal): Promise<PoolReport> {
    return this.json({ method: 'GET', path: '/pool', signal });
  }

  private async json<T>(call: Call): Promise<T> {
    return (await this.send(call)).json() as Promise<T>;
  }

  private send(call: Call): Promise<Response> {
    return sendCall(this.settings, { ...call, path: `/admin${call.path}` });
  }
}
