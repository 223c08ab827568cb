/** A prompt ComfyUI refused (protocol §3), as the run error runload reports. */
import type { RunError } from '@runload/core';

interface RefusalBody {
  readonly error?: { type?: string; message?: string; details?: string; extra_info?: Record<string, unknown> } | string;
  readonly node_errors?: Record<string, { class_type?: string; errors?: unknown[] }>;
}

/** Validation refusals name their node in `node_errors`, or (unknown class) only in `details` or `extra_info`. */
export function promptRefusal(status: number, raw: unknown): RunError {
  const body = (raw && typeof raw === 'object' ? raw : {}) as RefusalBody;
  const error = typeof body.error === 'object' ? body.error : undefined;
  const nodeErrors = body.node_errors ?? {};
  const [firstNode, firstError] = Object.entries(nodeErrors)[0] ?? [null, null];
  const extraNode = error?.extra_info?.['node_id'];
  const detailsNode = /Node ID '#([^']+)'/.exec(error?.details ?? '')?.[1];
  const extraClass = error?.extra_info?.['class_type'];
  const message =
    error?.message ?? (typeof body.error === 'string' ? body.error : null) ?? (typeof raw === 'string' && raw ? raw.slice(0, 200) : `ComfyUI refused the prompt (${status})`);
  return {
    code: 'VALIDATION_ERROR',
    message,
    nodeId: firstNode ?? (typeof extraNode === 'string' ? extraNode : (detailsNode ?? null)),
    nodeType: firstError?.class_type ?? (typeof extraClass === 'string' ? extraClass : null),
    details: { status, type: error?.type ?? null, node_errors: nodeErrors },
  };
}
