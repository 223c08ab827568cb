/**
 * Queues a run of a published app version. Order of checks:
 * the body, the app version, the inputs, backend reachability, then the run limits and the
 * GPU quota, then the run is written. A run that is not written consumes no run budget.
 * @module
 */
import type { Asset } from '../domain/asset.js';
import { CoreError } from '../domain/errors.js';
import { checkInputs, describeProblems } from '../domain/input-validation.js';
import { newQueuedRun, type Run } from '../domain/run.js';
import { parseRunRequest } from '../domain/run-request.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { Clock } from '../ports/clock.js';
import type { Executor } from '../ports/executor.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { IdempotencyHold, IdempotencyStore, StoredResponse } from '../ports/idempotency-store.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import type { RunRepository } from '../ports/run-repository.js';
import { WORK_REASONS, type WorkSignal } from '../ports/work-signal.js';
import { checkMediaInputs, renewMediaInputs } from './check-media-inputs.js';
import { DEFAULT_LIMITS, expiryOf, type RetentionConfig } from '../domain/limits.js';
import type { Principal } from './principal.js';
import { requireLiveAppVersion } from './require-live-app-version.js';
import type { RunAdmission, RunLimitsView } from './run-admission.js';

export interface CreateRunCommand {
  readonly principal: Principal;
  /** From the path (`POST /apps/{id}`), or null when the body carries it (`POST /runs`). */
  readonly appVersionId: string | null;
  /** The parsed JSON body. */
  readonly body: unknown;
  /**
   * A claimed idempotency key: the run and the response `respond` gives for it are then written
   * in one transaction, so a crash leaves both or neither.
   */
  readonly idempotency?: { readonly hold: IdempotencyHold; respond(run: Run): StoredResponse };
}

export interface CreateRunResult extends RunLimitsView {
  readonly run: Run;
}

/** Seconds a client should wait before retrying when no backend is reachable. */
export const BACKEND_RETRY_AFTER_SECONDS = 5;

export class CreateRun {
  constructor(
    private readonly appVersions: AppVersionRepository,
    private readonly assets: AssetRepository,
    private readonly runs: RunRepository,
    private readonly executor: Executor,
    private readonly admission: RunAdmission,
    private readonly signal: WorkSignal,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly idempotency: IdempotencyStore,
    private readonly webhooks: WebhookTransport,
    private readonly retention: RetentionConfig = DEFAULT_LIMITS.retention,
  ) {}

  /** @throws CoreError INVALID_REQUEST, APP_VERSION_NOT_FOUND, APP_DELETED, INVALID_INPUT, SERVICE_UNAVAILABLE, GPU_QUOTA_EXCEEDED, RATE_LIMITED */
  async execute(command: CreateRunCommand): Promise<CreateRunResult> {
    const request = parseRunRequest(command.body, command.appVersionId === null);
    const appVersionId = command.appVersionId ?? (request.appVersionId as string);
    const version = await requireLiveAppVersion(this.appVersions, appVersionId);
    if (request.webhook) {
      const refusal = await this.webhooks.refusal(request.webhook.url);
      if (refusal) throw new CoreError('INVALID_WEBHOOK', `"webhook" cannot be used: ${refusal}`);
    }

    const { account } = command.principal;
    const { values, problems } = checkInputs(version.inputs, request.inputs);
    const now = this.clock.now();
    const media = new Map<string, Asset>();
    problems.push(...(await checkMediaInputs(this.assets, account.id, version.inputs, values, now, media)));
    if (problems.length === 0) {
      problems.push(...(await renewMediaInputs(this.assets, media, expiryOf('upload', now, this.retention), now)));
    }
    if (problems.length > 0) {
      const { message, details } = describeProblems(problems, version.id);
      throw new CoreError('INVALID_INPUT', message, { details });
    }

    const health = await this.executor.health();
    if (!health.available) {
      throw new CoreError('SERVICE_UNAVAILABLE', 'The execution backend is unreachable; try again shortly', {
        retryAfterSeconds: BACKEND_RETRY_AFTER_SECONDS,
      });
    }

    // A run no backend can run would only wait out its queue time: the operator's pool lacks something.
    const missing = this.executor.missingEverywhere({ workflow: version.workflow, inputs: values, ...(version.requireLabels ? { requireLabels: version.requireLabels } : {}) });
    if (missing) throw new CoreError('SERVICE_UNAVAILABLE', missing, { retryAfterSeconds: BACKEND_RETRY_AFTER_SECONDS });

    const { admission: admitted, written: run } = await this.admission.admitAndWrite(account, version.id, async () => {
      const queued = newQueuedRun({
        id: this.ids.uuid(),
        accountId: account.id,
        appVersionId: version.id,
        createdAt: this.clock.now(),
        inputs: values,
        webhook: request.webhook,
        ...(version.requireLabels ? { requireLabels: version.requireLabels } : {}),
      });
      const idem = command.idempotency;
      if (idem) await this.idempotency.completeWithRun(idem.hold, queued, idem.respond(queued));
      else await this.runs.create(queued);
      return queued;
    });
    this.signal.notify(WORK_REASONS.runQueued);
    return { run, windows: admitted.windows, quota: admitted.quota };
  }
}
