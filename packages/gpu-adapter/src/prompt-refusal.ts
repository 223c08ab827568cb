/** A prompt ComfyUI refused (`POST /prompt` answered 400 or 500), as the run error runload reports. */
import type { RunError, Workflow } from '@runload/core';
import { stripBackendPaths, stripBackendPathsDeep } from './backend-paths.js';

interface RefusalBody {
  readonly error?: { type?: string; message?: string; details?: string; extra_info?: Record<string, unknown> } | string;
  readonly node_errors?: Record<string, { class_type?: string; errors?: unknown[] }>;
}

/**
 * Validation refusals name their node in `node_errors`, or (unknown class) only in `details` or
 * `extra_info`; the class of a node the server does not know is read from the workflow sent.
 */
export function promptRefusal(status: number, raw: unknown, workflow?: Workflow): RunError {
  const body = (raw && typeof raw === 'object' ? raw : {}) as RefusalBody;
  const error = typeof body.error === 'object' ? body.error : undefined;
  const nodeErrors = body.node_errors ?? {};
  const [firstNode, firstError] = Object.entries(nodeErrors)[0] ?? [null, null];
  const extraNode = error?.extra_info?.['node_id'];
  const detailsNode = /Node ID '#([^']+)'/.exec(error?.details ?? '')?.[1];
  const extraClass = error?.extra_info?.['class_type'];
  const message =
    error?.message ?? (typeof body.error === 'string' ? body.error : null) ?? (typeof raw === 'string' && raw ? raw.slice(0, 200) : `ComfyUI refused the prompt (${status})`);
  const nodeId = firstNode ?? (typeof extraNode === 'string' ? extraNode : (detailsNode ?? null));
  const sentClass = nodeId !== null ? workflow?.[nodeId]?.class_type : undefined;
  return {
    code: 'VALIDATION_ERROR',
    message: stripBackendPaths(message),
    nodeId,
    nodeType: firstError?.class_type ?? (typeof extraClass === 'string' ? extraClass : (sentClass ?? null)),
    details: { status, type: error?.type ?? null, node_errors: stripBackendPathsDeep(nodeErrors) },
  };
}

/** What became of the valid part of a partly refused prompt once runload asked to take it back. */
export type TakenBack = 'before-it-ran' | 'after-it-ran' | 'while-it-ran' | 'unknown';

const WHAT_HAPPENED: Record<TakenBack, string> = {
  'before-it-ran': 'the run was stopped before it executed',
  'after-it-ran': 'the valid part of the workflow had already executed on the backend; its outputs are not kept',
  'while-it-ran': 'the valid part of the workflow had started on the backend and was interrupted',
  unknown: 'the backend was asked to drop the valid part of the workflow, which may have executed; its outputs are not kept',
};

/**
 * ComfyUI queued the prompt but dropped output nodes that failed validation (a 200 with
 * `node_errors`). runload refuses such a run as a whole, with the same node errors, and says what
 * became of the part the backend had queued.
 */
export function partialRefusal(nodeErrors: Record<string, unknown>, workflow: Workflow, takenBack: TakenBack = 'unknown'): RunError {
  const dropped = Object.keys(nodeErrors).join(', ');
  const error = promptRefusal(200, { error: { type: 'prompt_outputs_failed_validation', message: '' }, node_errors: nodeErrors }, workflow);
  return { ...error, message: `Some nodes of the workflow failed validation (${dropped}); ${WHAT_HAPPENED[takenBack]}` };
}
