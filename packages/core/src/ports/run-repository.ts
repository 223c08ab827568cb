import type { AuditEntry } from '../domain/audit.js';
import type { Run, RunStatus, RunToPlace } from '../domain/run.js';

/** A run and its place in the queue: null once it left the queue, 0 once a backend holds it. */
export interface RunWithQueuePosition {
  readonly run: Run;
  readonly queuePosition: number | null;
}

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
    | 'attempts'
  >
>;

/** Preconditions of a compare-and-set update. */
export interface RunUpdateGuard {
  /** The run's status must be one of these. */
  readonly status?: readonly RunStatus[];
  /** The run's lease must be held by this owner. */
  readonly leaseOwner?: string;
  /** The run must be on no backend (waiting). */
  readonly unplaced?: true;
  /** The run must be claimed to wait for room on its backend, its prompt not sent (see {@link SlotOffer.waitsForRoom}). */
  readonly waitingForRoom?: true;
}

/** A backend offered to a claim: how many runload prompts it may hold at most right now. */
export interface SlotOffer {
  readonly id: string;
  /** The depth less the prompts other clients hold there. */
  readonly capacity: number;
  /**
   * A slot one past the backend's capacity, offered by the claimer whose runs fill it: a run placed
   * there waits, claimed, until one of those is done, and is sent with no claim in between. It
   * counts in the claims' room like any run on the backend (no one else can take the backend
   * meanwhile) but not in {@link RunRepository.heldByBackend} (its prompt is not on the backend)
   * until it {@link RunRepository.leaveWaiting | leaves waiting}.
   */
  readonly waitsForRoom?: boolean;
}

/** A backend with at least one free slot, as the claim's transaction sees it. */
export interface FreeBackend {
  readonly id: string;
  /** Free slots: its capacity less the runs (of any instance) it holds now. */
  readonly room: number;
  /** The app version of the last run placed there (its models are probably loaded), or null. */
  readonly lastAppVersionId: string | null;
  /** When a run was last placed there (epoch ms), or null when never. */
  readonly lastPlacedAtMs: number | null;
}

/** What one backend did (see {@link RunRepository.backendUsage}). */
export interface BackendUsage {
  readonly runsExecuted: number;
  readonly gpuSeconds: number;
  readonly lastAppVersionId: string | null;
}

export interface ClaimRequest {
  readonly owner: string;
  readonly leaseExpiresAt: Date;
  readonly now: Date;
  /** Runs created before this are past their queue time: never claimed (the sweep expires them). */
  readonly queuedSince: Date;
  readonly backends: readonly SlotOffer[];
  /**
   * Chooses the backend for a candidate run among the free ones, or null to pass the run by (no
   * capable backend has room). Called inside the claim's transaction: synchronous and quick. The
   * list may also hold backends another instance's claim has at the moment (with their room as last
   * committed): a run placed on one of those is passed by, left to that claim, rather than put on a
   * backend that is only second best for it. The run comes with its app version's workflow.
   */
  place(run: RunToPlace, free: readonly FreeBackend[]): string | null;
  /**
   * Runs the claimer follows whose backend has finished with them (their outcome is being
   * stored): they take no room there any more, although they are not finished yet. Only the
   * claimer knows this (it holds their leases); a run it does not name counts until it ends.
   */
  readonly finishedOnBackend?: readonly string[];
  /**
   * Claim only runs failing over (started, lost by their backend, waiting on no backend), in the
   * same order and whatever their age (their queue time was spent long ago), instead of queued ones.
   */
  readonly failover?: boolean;
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
   * run does not exist or the guard failed (nothing changed then). An audit entry (an operator's
   * change) is written in the same transaction, and only when the run changed.
   *
   * The write that makes a run `succeeded` also reveals its outputs: the pending asset records
   * of the run's account that its `outputs` name (see `AssetRepository.createPending`)
   * become stored in the same write, so a reader sees the run succeeded and its outputs together.
   *
   * The write that finishes a run (to a terminal status from one that was not) with
   * `metrics.gpuSeconds` above zero also charges those seconds to the run's account in the GPU
   * ledger of the same storage, at its `finishedAt` (see `GpuLedger`): a run is charged exactly
   * when its finish is recorded, and a write that finds it moved on charges nothing.
   */
  update(id: string, patch: RunPatch, guard?: RunUpdateGuard, audit?: AuditEntry): Promise<Run | null>;
  /** Removes a run record; true when it existed. Only to undo a creation whose follow-up failed. */
  delete(id: string): Promise<boolean>;
  /**
   * Runs of every account (or of `accountId`, or in `status`), newest first (by createdAt, then
   * id), for the operator's support tools. `after` is a cursor from a previous page.
   * @throws CoreError INVALID_REQUEST for a cursor this service did not issue
   */
  listAll(options: { limit: number; after?: string | null; accountId?: string; status?: RunStatus }): Promise<RunPage>;
  /** The account's runs, newest first (by createdAt, then id). `after` is a cursor from a previous page. */
  listByAccount(accountId: string, options: { limit: number; after?: string | null }): Promise<RunPage>;
  /**
   * How many queued runs start before this one in the claim order (fair share: an account's k-th
   * queued run ranks by k plus its runs on a backend; ties by age): its place in the queue, 0-based.
   */
  queuePosition(run: Run): Promise<number>;
  /**
   * A run as a poll shows it, read at one instant: the run, and its place in the queue while it
   * waits (as {@link RunRepository.queuePosition}), 0 once a backend holds it, null once it left
   * the queue. Null when there is no such run.
   */
  getWithQueuePosition(id: string): Promise<RunWithQueuePosition | null>;
  /**
   * Claims the oldest `queued` run with no backend whose lease is free (null or expired at `now`):
   * sets its lease to `owner` until `leaseExpiresAt` and, when given, the backend it is being sent
   * to (in the same write: a crash after the claim is then settled by asking that backend). Never
   * gives one run to two claimers.
   */
  claimNextQueued(owner: string, leaseExpiresAt: Date, now: Date, backendId?: string): Promise<Run | null>;
  /**
   * Claims a queued run and reserves a slot for it on a backend, atomically for every instance:
   * a backend never holds more runs (queued on it, running, canceling) than its offered capacity,
   * and a backend being drained takes none. Candidates come in fair-share order: accounts with the fewest runs
   * on a backend first, then the oldest run; `place` picks the backend or passes a run by.
   * Returns the claimed run (its lease and `backendId` set), or null when nothing fits.
   */
  claimNext(request: ClaimRequest): Promise<Run | null>;
  /**
   * Claims up to `max` runs as {@link claimNext} does: each in the fair-share order the ones
   * claimed before it leave, each on a backend with room after them.
   * Fewer (or none) when nothing more fits.
   */
  claimMany(request: ClaimRequest, max: number): Promise<Run[]>;
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
   * Number of runs the account created from `from` (included) to `to` (excluded), whatever became
   * of them: what a rate window counted before the process that keeps it started.
   */
  countCreated(accountId: string, from: Date, to: Date): Promise<number>;
  /**
   * Sum over the account's non-terminal runs of their app version's mean `gpuSeconds` over its
   * last 20 finished runs (0 for a version with none).
   */
  estimateInFlightGpuSeconds(accountId: string): Promise<number>;
  /**
   * For each app version named, in that order, what {@link estimateInFlightGpuSeconds} counts for
   * one run of it in flight: the mean `gpuSeconds` of its last 20 finished runs (0 for none).
   */
  estimateGpuSeconds(appVersionIds: readonly string[]): Promise<number[]>;
  /**
   * Runs each backend holds now (placed there and not finished, a run waiting for room there left
   * out), by backend id; backends holding none are left out.
   */
  heldByBackend(): Promise<Map<string, number>>;
  /**
   * A run claimed to wait for room (see {@link SlotOffer.waitsForRoom}) is about to be sent: held on
   * its backend from now on, its lease renewed to `leaseExpiresAt`. False, changing nothing, when it
   * no longer waits as `owner`'s (canceled meanwhile, or its lease lost): it must not be sent.
   */
  leaveWaiting(id: string, owner: string, leaseExpiresAt: Date): Promise<boolean>;
  /**
   * What each backend did, by backend id: its finished runs (those that ended there) and their
   * GPU-seconds, and the app version last placed there (its models are probably loaded).
   */
  backendUsage(): Promise<Map<string, BackendUsage>>;
  /** Runs failing over now (started, lost by their backend, on no backend yet), oldest first. */
  listFailingOver(limit: number): Promise<Run[]>;
}

export const RUN_REPOSITORY = Symbol.for('runload.core.RunRepository');
