import type { Run, RunStatus } from '../domain/run.js';

/** Fields a state change may set. `id`, `accountId`, `appVersionId`, `createdAt`, `inputs` and `workflow` never change. */
export type RunPatch = Partial<
  Pick<
    Run,
    | 'status'
    | 'startedAt'
    | 'finishedAt'
    | 'progress'
    | 'outputs'
    | 'error'
    | 'metrics'
    | 'backendId'
    | 'leaseOwner'
    | 'leaseExpiresAt'
    | 'cancelRequested'
  >
>;

/** Preconditions of a compare-and-set update. */
export interface RunUpdateGuard {
  /** The run's status must be one of these. */
  readonly status?: readonly RunStatus[];
  /** The run's lease must be held by this owner. */
  readonly leaseOwner?: string;
}

export interface RunPage {
  readonly runs: Run[];
  /** Pass back as `after` for the next (older) page; null on the last page. */
  readonly nextCursor: string | null;
}

export interface RunRepository {
  /** Stores a new run. */
  create(run: Run): Promise<void>;
  /** The run, or null when no run has that id (whoever owns it). */
  get(id: string): Promise<Run | null>;
  /**
   * Applies the patch when the guard holds; returns the run as it now is, or null when the
   * run does not exist or the guard failed (nothing changed then).
   */
  update(id: string, patch: RunPatch, guard?: RunUpdateGuard): Promise<Run | null>;
  /** Removes a run record; true when it existed. Only to undo a creation whose follow-up failed. */
  delete(id: string): Promise<boolean>;
  /** The account's runs, newest first (by createdAt, then id). `after` is a cursor from a previous page. */
  listByAccount(accountId: string, options: { limit: number; after?: string | null }): Promise<RunPage>;
  /** How many queued runs (of any account) were created before this one: its place in the queue, 0-based. */
  queuePosition(run: Run): Promise<number>;
  /**
   * Claims the oldest `queued` run with no backend whose lease is free (null or expired at `now`):
   * sets its lease to `owner` until `leaseExpiresAt` and, when given, the backend it is being sent
   * to (in the same write: a crash after the claim is then settled by asking that backend). Never
   * gives one run to two claimers.
   */
  claimNextQueued(owner: string, leaseExpiresAt: Date, now: Date, backendId?: string): Promise<Run | null>;
  /**
   * Takes over the lease of a run that is not terminal when its lease is free or already `owner`'s;
   * returns the run with the new lease, or null.
   */
  acquireLease(id: string, owner: string, leaseExpiresAt: Date, now: Date): Promise<Run | null>;
  /** Runs that are not terminal, hold a backend and whose lease is free at `now` (their dispatcher died), oldest first. */
  listOrphaned(now: Date, limit: number): Promise<Run[]>;
  /**
   * Extends the leases `owner` holds on these runs, where they are not terminal; returns how many.
   * Only runs a dispatcher still follows are named, so a run it dropped is freed when its lease lapses.
   */
  renewLeases(owner: string, leaseExpiresAt: Date, ids: readonly string[]): Promise<number>;
  /** Clears every lease `owner` holds; returns how many. */
  releaseLeases(owner: string): Promise<number>;
  /** Queued runs created before `createdBefore`, oldest first (for expiry). */
  listQueuedBefore(createdBefore: Date, limit: number): Promise<Run[]>;
  /** Number of the account's runs that are not terminal. */
  countActive(accountId: string): Promise<number>;
  /**
   * Sum over the account's non-terminal runs of their app version's mean `gpuSeconds` over its
   * last 20 finished runs (0 for a version with none).
   */
  estimateInFlightGpuSeconds(accountId: string): Promise<number>;
}

export const RUN_REPOSITORY = Symbol.for('runload.core.RunRepository');
