/**
 * Assets and runs as the Comfy API v2 shows them: assets with their `blake3:` hash and an absolute
 * content URL, runs as jobs with links to follow. Content URLs need the API key like every route
 * and do not expire on their own: `url_expires_at` is the asset's retention expiry, or
 * {@link NEVER} for one kept until deleted.
 * @module
 */
import { expiryOf, mediaKindOf, type Asset, type RetentionConfig, type Run, type RunOutput, type Workflow } from '@runload/core';

export const V2_PREFIX = '/api/v2';

/** The expiry shown for what is kept until deleted (the v2 wants a time). */
export const NEVER = '9999-12-31T23:59:59.999Z';

function isoOrNever(date: Date | null): string {
  return date === null ? NEVER : date.toISOString();
}

export function contentUrl(origin: string, assetId: string): string {
  return `${origin}${V2_PREFIX}/assets/${assetId}/content`;
}

export function presentV2Asset(asset: Asset, origin: string, createdNew?: boolean) {
  return {
    id: asset.id,
    hash: asset.blake3 === null ? null : `blake3:${asset.blake3}`,
    size_bytes: asset.size,
    content_type: asset.contentType,
    file_path: asset.filename,
    ...(createdNew === undefined ? {} : { created_new: createdNew }),
    created_at: asset.createdAt.toISOString(),
    url: contentUrl(origin, asset.id),
    url_expires_at: isoOrNever(asset.expiresAt),
    expires_at: asset.expiresAt?.toISOString() ?? null,
  };
}

function outputType(contentType: string): 'image' | 'video' | 'audio' | 'file' {
  return mediaKindOf(contentType) ?? 'file';
}

export function presentV2Output(run: Run, output: RunOutput, origin: string, retention: RetentionConfig) {
  return {
    node_id: output.nodeId,
    name: output.filename,
    type: outputType(output.contentType),
    content_type: output.contentType,
    size_bytes: output.size,
    id: output.assetId,
    // Kept on the asset (GET /api/v2/assets/{id}); a poll does not read every output's record.
    hash: null,
    url: contentUrl(origin, output.assetId),
    url_expires_at: isoOrNever(expiryOf('output', run.finishedAt ?? run.createdAt, retention)),
    job_id: run.id,
  };
}

/**
 * A run's progress is counted in nodes to run (those ComfyUI did not take from its cache), the
 * node running now counting for the part of its steps done: `value` is that fraction,
 * `nodes_done` the nodes finished. The steps of the running node are not kept apart (null).
 */
export function presentV2Progress(run: Run, workflow: Workflow) {
  const p = run.progress;
  if (run.status === 'succeeded') {
    const total = p ? Math.round(p.max) : Object.keys(workflow).length;
    return { value: 1, nodes_done: total, nodes_total: total, current_node: null, current_node_class: null, step: null, steps: null, message: null };
  }
  if (!p) return null;
  const total = Math.max(0, Math.round(p.max));
  const value = p.max > 0 ? Math.min(1, Math.max(0, p.value / p.max)) : 0;
  const done = Math.min(total, Math.floor(Math.max(0, p.value)));
  const nodeClass = p.nodeId === null ? null : (workflow[p.nodeId]?.class_type ?? null);
  return {
    value,
    nodes_done: done,
    nodes_total: total,
    current_node: p.nodeId,
    current_node_class: nodeClass,
    step: null,
    steps: null,
    message: `${done}/${total} nodes${nodeClass ? `, running ${nodeClass}` : ''}`,
  };
}

/** A run's error code as the v2 writes codes (a node that raised: `node_execution_error`). */
function errorCode(code: string): string {
  return code === 'EXECUTION_ERROR' ? 'node_execution_error' : code.toLowerCase();
}

export function jobUrls(runId: string) {
  const self = `${V2_PREFIX}/jobs/${runId}`;
  return { self, events: `${self}/events`, cancel: `${self}/cancel` };
}

/** A run as a v2 job; `workflow` is its app version's (its progress counts and names its nodes). */
export function presentJob(run: Run, workflow: Workflow, queuePosition: number | null, origin: string, retention: RetentionConfig) {
  return {
    id: run.id,
    status: run.status,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    completed_at: run.finishedAt?.toISOString() ?? null,
    expires_at: isoOrNever(expiryOf('output', run.finishedAt ?? run.createdAt, retention)),
    queue_position: run.status === 'queued' ? queuePosition : null,
    progress: presentV2Progress(run, workflow),
    outputs: run.outputs.map((o) => presentV2Output(run, o, origin, retention)),
    error: run.error
      ? { code: errorCode(run.error.code), message: run.error.message, node_id: run.error.nodeId, class_type: run.error.nodeType, traceback: null }
      : null,
    metrics: {
      queue_ms: run.metrics.queueMs === null ? null : Math.round(run.metrics.queueMs),
      execution_ms: run.metrics.runMs === null ? null : Math.round(run.metrics.runMs),
      gpu_ms: run.metrics.gpuSeconds === null ? null : Math.round(run.metrics.gpuSeconds * 1000),
    },
    urls: jobUrls(run.id),
  };
}
