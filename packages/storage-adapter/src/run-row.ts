/** Mapping between the `runs` table and the Run type. */
import type { Run, RunError, RunInputs, RunMetrics, RunOutput, RunPatch, RunProgress, RunStatus, RunWebhook, WebhookEventType } from '@runload/core';
import { json, jsonOrNull, msOrNull, toDate, toDateOrNull } from './columns.js';

export function toRun(row: Record<string, unknown>): Run {
  return {
    id: String(row['id']),
    accountId: String(row['account_id']),
    appVersionId: String(row['app_version_id']),
    status: row['status'] as RunStatus,
    createdAt: toDate(row['created_at']),
    startedAt: toDateOrNull(row['started_at']),
    finishedAt: toDateOrNull(row['finished_at']),
    inputs: json<RunInputs>(row['inputs']),
    progress: jsonOrNull<RunProgress>(row['progress']),
    outputs: json<RunOutput[]>(row['outputs']),
    error: jsonOrNull<RunError>(row['error']),
    metrics: json<RunMetrics>(row['metrics']),
    backendId: (row['backend_id'] as string | null) ?? null,
    leaseOwner: (row['lease_owner'] as string | null) ?? null,
    leaseExpiresAt: toDateOrNull(row['lease_expires_at']),
    cancelRequested: row['cancel_requested'] === true || row['cancel_requested'] === 1,
    webhook: toWebhook(row),
    requireLabels: row['require_labels'] ? json<Record<string, string>>(row['require_labels']) : {},
    attempts: Number(row['attempts'] ?? 0),
  };
}

// Integrations: `webhook_events` is stored as `,run.succeeded,run.failed,` so the outbox triggers can match one with a LIKE.
function toWebhook(row: Record<string, unknown>): RunWebhook | null {
  const url = row['webhook_url'];
  if (typeof url !== 'string') return null;
  const events = String(row['webhook_events'] ?? '').split(',').filter(Boolean) as WebhookEventType[];
  return { url, events };
}

export function fromRun(run: Run): Record<string, unknown> {
  const row: Record<string, unknown> = {
    id: run.id,
    account_id: run.accountId,
    app_version_id: run.appVersionId,
    inputs: JSON.stringify(run.inputs),
    created_at: run.createdAt.getTime(),
    ...(run.webhook ? { webhook_url: run.webhook.url, webhook_events: `,${run.webhook.events.join(',')},` } : {}),
    ...(Object.keys(run.requireLabels).length > 0 ? { require_labels: JSON.stringify(run.requireLabels) } : {}),
    ...fromPatch(run),
  };
  // A new run has made no attempt: the column's default says so (and a database before migration 010 has no such column).
  if (run.attempts === 0) delete row['attempts'];
  return row;
}

export function fromPatch(patch: RunPatch): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  if (patch.status !== undefined) row['status'] = patch.status;
  if (patch.startedAt !== undefined) row['started_at'] = msOrNull(patch.startedAt);
  if (patch.finishedAt !== undefined) row['finished_at'] = msOrNull(patch.finishedAt);
  if (patch.progress !== undefined) row['progress'] = patch.progress === null ? null : JSON.stringify(patch.progress);
  if (patch.outputs !== undefined) row['outputs'] = JSON.stringify(patch.outputs);
  if (patch.error !== undefined) row['error'] = patch.error === null ? null : JSON.stringify(patch.error);
  if (patch.metrics !== undefined) {
    row['metrics'] = JSON.stringify(patch.metrics);
    row['gpu_seconds'] = patch.metrics.gpuSeconds;
  }
  if (patch.backendId !== undefined) row['backend_id'] = patch.backendId;
  if (patch.leaseOwner !== undefined) row['lease_owner'] = patch.leaseOwner;
  if (patch.leaseExpiresAt !== undefined) row['lease_expires_at'] = msOrNull(patch.leaseExpiresAt);
  if (patch.cancelRequested !== undefined) row['cancel_requested'] = patch.cancelRequested;
  if (patch.attempts !== undefined) row['attempts'] = patch.attempts;
  return row;
}
