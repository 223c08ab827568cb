/**
 * Runs and their state machine:
 * queued → running → succeeded | failed; queued → expired; queued → canceled;
 * running → canceling → canceled (or succeeded/failed if it finished first); a queued run that
 * already sits in a backend's queue goes queued → canceling → canceled.
 * A status never moves backwards.
 * @module
 */
import type { Workflow } from './app-version.js';
import { CoreError } from './errors.js';
import type { RunWebhook } from './webhook.js';
import type { BackendLabels } from './backend.js';

import type { RunStatus } from './run-status.js';

export { RUN_STATUSES, type RunStatus } from './run-status.js';

export const TERMINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'canceled', 'expired'];

/** Queued and on no backend: waiting for a slot (what queue positions count). */
export function isWaiting(run: Pick<Run, 'status' | 'backendId'>): boolean {
  return run.status === 'queued' && run.backendId === null;
}

/**
 * Started, then lost by its backend, and waiting for another one (failover): it stays `running`
 * (a status never moves backwards) on no backend.
 */
export function isFailingOver(run: Pick<Run, 'status' | 'backendId'>): boolean {
  return run.status === 'running' && run.backendId === null;
}

/**
 * A run's place in the queue: null once it left the queue, 0 once a backend holds it (it starts
 * before every waiting run), else `waitingBefore`, the waiting runs counted ahead of it.
 */
export function placeInQueue(run: Pick<Run, 'status' | 'backendId'>, waitingBefore: number | undefined): number | null {
  if (run.status !== 'queued') return null;
  return run.backendId !== null ? 0 : (waitingBefore ?? 0);
}

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

const ALLOWED: Record<RunStatus, readonly RunStatus[]> = {
  queued: ['running', 'canceling', 'canceled', 'expired', 'failed'],
  running: ['canceling', 'succeeded', 'failed'],
  canceling: ['canceled', 'succeeded', 'failed'],
  succeeded: [],
  failed: [],
  canceled: [],
  expired: [],
};

export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return ALLOWED[from].includes(to);
}

export function assertTransition(from: RunStatus, to: RunStatus): void {
  if (!canTransition(from, to)) {
    throw new CoreError('INVALID_TRANSITION', `A run cannot move from ${from} to ${to}`);
  }
}

/**
 * Why a run failed. `OUTPUTS_UNREADABLE`: the backend executed the run (and it is charged for
 * that time) but its output files could not be read back from it.
 */
export type RunErrorCode = 'VALIDATION_ERROR' | 'EXECUTION_ERROR' | 'RUN_TIMEOUT' | 'BACKEND_LOST' | 'OUTPUTS_UNREADABLE';

export interface RunError {
  readonly code: RunErrorCode;
  readonly message: string;
  readonly nodeId: string | null;
  readonly nodeType: string | null;
  readonly details?: unknown;
}

export interface RunProgress {
  readonly value: number;
  readonly max: number;
  readonly nodeId: string | null;
}

export interface RunOutput {
  readonly assetId: string;
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  readonly nodeId: string;
}

export interface RunMetrics {
  readonly queueMs: number | null;
  readonly runMs: number | null;
  readonly gpuSeconds: number | null;
}

/** Input values as the caller sent them (after validation); media values are asset ids. */
export type RunInputs = Record<string, string | number | boolean>;

/**
 * A run. Its workflow is its app version's, read from there when needed (dispatch, capability):
 * versions never change and are never removed, so a run of a deleted app still finishes, and the
 * run's own record (written at each change, read at each poll) stays small.
 */
export interface Run {
  readonly id: string;
  readonly accountId: string;
  readonly appVersionId: string;
  readonly status: RunStatus;
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  /** The caller's inputs (validated). */
  readonly inputs: RunInputs;
  readonly progress: RunProgress | null;
  readonly outputs: readonly RunOutput[];
  readonly error: RunError | null;
  readonly metrics: RunMetrics;
  /** Which backend holds the run once dispatched (null while waiting). */
  readonly backendId: string | null;
  /** Dispatcher lease: who claimed the run and until when. */
  readonly leaseOwner: string | null;
  readonly leaseExpiresAt: Date | null;
  /** Set when a cancel was asked for; the dispatcher acts on it. */
  readonly cancelRequested: boolean;
  /** Where the run's events are POSTed; absent or null for none. Never changes. */
  readonly webhook?: RunWebhook | null;
  /** Labels a backend must have to take the run (its app version's, copied). Never changes. */
  readonly requireLabels: BackendLabels;
  /** Its dispatches that reached a backend: one more at each claim, one less when it goes back to the queue unstarted. */
  readonly attempts: number;
}

/** A waiting run as a claim offers it for placement: with its version's workflow, which capability is judged on. */
export interface RunToPlace extends Run {
  readonly workflow: Workflow;
}

export const EMPTY_METRICS: RunMetrics = { queueMs: null, runMs: null, gpuSeconds: null };

/** A new run, as it is when created: queued, nothing known yet. */
export function newQueuedRun(fields: Pick<Run, 'id' | 'accountId' | 'appVersionId' | 'createdAt' | 'inputs' | 'webhook'> & Partial<Pick<Run, 'requireLabels'>>): Run {
  return {
    webhook: null,
    requireLabels: {},
    ...fields,
    status: 'queued',
    startedAt: null,
    finishedAt: null,
    progress: null,
    outputs: [],
    error: null,
    metrics: EMPTY_METRICS,
    backendId: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    cancelRequested: false,
    attempts: 0,
  };
}
