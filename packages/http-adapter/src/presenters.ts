/** Domain objects as the API's snake_case JSON (CONTRACT 3 and 4). */
import type { AccountOverview, AppVersion, Asset, BackendView, PreviewInfo, Run } from '@runload/core';

export const API_PREFIX = '/api/v1';

export function pollUrl(runId: string): string {
  return `${API_PREFIX}/runs/${runId}`;
}

export function presentAsset(a: Asset) {
  return { asset_id: a.id, filename: a.filename, content_type: a.contentType, size: a.size, sha256: a.sha256, created_at: a.createdAt.toISOString(), expires_at: a.expiresAt?.toISOString() ?? null };
}

export function presentCreatedRun(run: Run) {
  return { run_id: run.id, status: run.status, created_at: run.createdAt.toISOString(), poll_url: pollUrl(run.id) };
}

export function presentRun(run: Run, queuePosition: number | null) {
  return {
    run_id: run.id,
    app_version_id: run.appVersionId,
    status: run.status,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    finished_at: run.finishedAt?.toISOString() ?? null,
    poll_url: pollUrl(run.id),
    inputs: run.inputs,
    queue_position: run.status === 'queued' ? queuePosition : null,
    progress: run.progress ? { value: run.progress.value, max: run.progress.max, node_id: run.progress.nodeId } : null,
    outputs: run.outputs.map((o) => ({
      asset_id: o.assetId,
      filename: o.filename,
      content_type: o.contentType,
      size: o.size,
      node_id: o.nodeId,
      url: `${API_PREFIX}/assets/${o.assetId}/content`,
    })),
    error: run.error
      ? {
          code: run.error.code,
          message: run.error.message,
          node_id: run.error.nodeId,
          node_type: run.error.nodeType,
          ...(run.error.details !== undefined ? { details: run.error.details } : {}),
        }
      : null,
    metrics: { queue_ms: run.metrics.queueMs, run_ms: run.metrics.runMs, gpu_seconds: run.metrics.gpuSeconds === null ? null : toMilliseconds(run.metrics.gpuSeconds) },
    // Shown to the run's owner only (every run route is the owner's); nothing secret is kept on a run.
    ...(run.webhook ? { webhook: run.webhook.url, webhook_events: [...run.webhook.events] } : {}),
    attempts: run.attempts,
  };
}

export function presentAppSummary(v: AppVersion) {
  return { app_version_id: v.id, app_id: v.appId, name: v.name, created_at: v.createdAt.toISOString() };
}

export function presentAppVersion(v: AppVersion) {
  return {
    app_version_id: v.id,
    app_id: v.appId,
    name: v.name,
    created_at: v.createdAt.toISOString(),
    inputs: v.inputs.map((i) => ({
      key: i.key,
      node_id: i.nodeId,
      widget: i.widget,
      type: i.type,
      default: i.default,
      ...(i.min !== undefined ? { min: i.min } : {}),
      ...(i.max !== undefined ? { max: i.max } : {}),
      ...(i.step !== undefined ? { step: i.step } : {}),
      ...(i.options !== undefined ? { options: i.options } : {}),
    })),
  };
}

export function presentAccount(o: AccountOverview) {
  return {
    account_id: o.account.id,
    name: o.account.name,
    tier: o.account.tier,
    limits: o.limits,
    gpu_seconds_used: toMilliseconds(o.quota.used),
    gpu_seconds_quota: o.quota.limit,
    quota_resets_at: new Date(o.quota.resetAt * 1000).toISOString(),
  };
}

/** GPU seconds are shown to the millisecond: sums of charges carry binary noise (0.9179999999999999). */
export function toMilliseconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** The `preview` event of a run's stream; the `seq` in the URL only defeats caches (the route answers the latest). */
export function presentPreviewEvent(info: PreviewInfo) {
  return { run_id: info.runId, node_id: info.nodeId, seq: info.seq, content_type: info.contentType, url: `/api/v1/runs/${info.runId}/preview?seq=${info.seq}` };
}

/** A backend of the pool (CLI and admin API). Its credentials are never shown: `has_auth` says they exist. */
export function presentBackend(v: BackendView) {
  const b = v.backend;
  return {
    backend_id: b.id,
    url: b.url,
    source: b.source,
    state: b.state,
    labels: { ...b.labels },
    depth: b.depth,
    has_auth: b.auth !== null,
    reachable: v.lapsed ? false : b.reachable,
    held: v.held,
    comfyui_version: b.comfyuiVersion,
    capabilities_hash: b.capabilitiesHash,
    warm_app_versions: [...v.warmAppVersions],
    runs_executed: v.runsExecuted,
    gpu_seconds: toMilliseconds(v.gpuSeconds),
    last_seen_at: b.lastSeenAt?.toISOString() ?? null,
    expires_at: b.expiresAt?.toISOString() ?? null,
  };
}
