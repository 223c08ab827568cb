/**
 * What the dispatcher's parts share: the ports, the options, the runs followed here, and the
 * background work they start.
 * @module
 */
import type { AppVersionRepository } from '../../ports/app-version-repository.js';
import type { AssetRepository } from '../../ports/asset-repository.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { Clock } from '../../ports/clock.js';
import type { Executor } from '../../ports/executor.js';
import type { RunRepository } from '../../ports/run-repository.js';
import type { Timers } from '../../ports/timers.js';
import type { WorkSignal } from '../../ports/work-signal.js';
import type { RunLifecycle } from '../run-lifecycle.js';
import type { RecordPreviews } from '../record-previews.js';
import type { FollowEvent, FollowState } from './follow-state.js';

export interface DispatcherOptions {
  /** This dispatcher's lease owner name; stable across restarts of a single instance. */
  readonly owner: string;
  readonly leaseMs: number;
  /** Runs a backend may hold at once, across every instance (1 = only idle backends get work). */
  readonly depth: number;
  /**
   * A backend that this dispatcher's runs fill gets one run more claimed, waiting here, sent the
   * moment one of them is done there with no claim between. It is claimed from `leadMs` before
   * that run's expected end (the mean hold of its app version's runs seen end here; the window
   * widened by how much they vary), so fair share decides it at most that early. Absent: no run is
   * claimed ahead.
   */
  readonly ahead?: { readonly leadMs: number };
  readonly maxQueueSeconds: number;
  readonly maxRunSeconds: number;
  /** How often the sweep runs (expiry, time limits, orphans, reconciliation). */
  readonly sweepMs: number;
  /** A backend unreachable this long loses its runs (queued ones are dispatched again). */
  readonly backendGraceMs: number;
  /** Dispatches a run may have in all when backends lose it after it started; default 3, 1 turns failover off. */
  readonly maxAttempts?: number;
  readonly log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
  /** Told of every change of a followed run's state (for tests and tracing). */
  readonly onTransition?: (change: Transition) => void;
}

export interface Transition {
  readonly runId: string;
  readonly from: FollowState['kind'];
  readonly event: FollowEvent['type'];
  readonly to: FollowState['kind'];
}

export interface DispatcherDeps {
  readonly runs: RunRepository;
  readonly appVersions: AppVersionRepository;
  readonly assets: AssetRepository;
  readonly blobs: BlobStore;
  readonly executor: Executor;
  readonly lifecycle: RunLifecycle;
  readonly signal: WorkSignal;
  readonly clock: Clock;
  readonly timers: Timers;
  /** Where the previews of followed runs go; without it they are dropped. */
  readonly previews?: RecordPreviews;
}

export interface DispatchContext {
  readonly deps: DispatcherDeps;
  readonly options: DispatcherOptions;
  /** Runs `task` without waiting for it; a failure is logged. `stop` waits for every such task. */
  spawn(task: () => Promise<unknown>): void;
  /** There may be room for another run: the claim loop runs. */
  wake(): void;
  /** A run may be failing over: the claim loop looks for those first. */
  failoverPossible(): void;
  leaseUntil(): Date;
  /**
   * Aborted when the dispatcher stops: work that may take minutes (an output's download) gives
   * up at once, and the run's outcome is stored by its next owner.
   */
  readonly stopping: AbortSignal;
}

export function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
