/**
 * A change of a run, as it is told to the instances that show the run live: the part of its
 * record that changes over its life, as the change left it (the rest is fixed when the run is
 * created). Pure; its text form is how it crosses to other instances.
 * @module
 */
import { RUN_STATUSES, type Run, type RunStatus } from './run.js';

export type RunChange = Pick<
  Run,
  'id' | 'status' | 'startedAt' | 'finishedAt' | 'progress' | 'outputs' | 'error' | 'metrics' | 'backendId' | 'leaseOwner' | 'leaseExpiresAt' | 'cancelRequested' | 'attempts'
>;

/** The change that left `run` as it is. */
export function runChangeOf(run: Run): RunChange {
  const { id, status, startedAt, finishedAt, progress, outputs, error, metrics, backendId, leaseOwner, leaseExpiresAt, cancelRequested, attempts } = run;
  return { id, status, startedAt, finishedAt, progress, outputs, error, metrics, backendId, leaseOwner, leaseExpiresAt, cancelRequested, attempts };
}

/** `run` (any earlier record of it) as `change` left it. */
export function withChange(run: Run, change: RunChange): Run {
  return { ...run, ...runChangeOf(change as Run) };
}

/** How far along its life a status is: a status never moves back, so a lower one is older news. */
export function statusRank(status: RunStatus): number {
  return RUN_STATUSES.indexOf(status);
}

/** The change as JSON text (dates as ISO strings). */
export function encodeRunChange(change: RunChange): string {
  return JSON.stringify(runChangeOf(change as Run));
}

/** The change `encodeRunChange` wrote, or null for text that is not one (another version's message). */
export function decodeRunChange(text: string): RunChange | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v['id'] !== 'string' || !RUN_STATUSES.includes(v['status'] as RunStatus) || !Array.isArray(v['outputs'])) return null;
  const date = (x: unknown) => (typeof x === 'string' ? new Date(x) : null);
  return { ...(v as unknown as RunChange), startedAt: date(v['startedAt']), finishedAt: date(v['finishedAt']), leaseExpiresAt: date(v['leaseExpiresAt']) };
}
