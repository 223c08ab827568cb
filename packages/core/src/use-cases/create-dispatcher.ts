/**
 * The dispatcher wired from the ports and the limits, as `createRunloadApi` wires the API: what an
 * instance that runs work starts beside the API. The times it keeps follow from the lease and the
 * limits; the instance names itself (`owner`) once, for every claim and lease it takes.
 * @module
 */
import type { LimitsConfig } from '../domain/limits.js';
import type { Logger } from '../ports/logger.js';
import { PREVIEW_KEEP_AFTER_END_MS } from '../ports/preview-store.js';
import type { Timers } from '../ports/timers.js';
import { DEFAULT_AHEAD_LEAD_MS } from './dispatch/ahead-timing.js';
import type { DispatcherOptions, Transition } from './dispatch/context.js';
import { Dispatcher } from './dispatcher.js';
import { RecordPreviews } from './record-previews.js';
import type { RunloadPorts } from './runload-api.js';
import { RunLifecycle } from './run-lifecycle.js';

export interface DispatcherSettings {
  /** This instance's name on its claims and leases; stable across restarts of a single instance. */
  readonly owner: string;
  readonly leaseMs: number;
  /** Runs a backend may hold at once, across every instance. */
  readonly depth: number;
  /**
   * Claims a full backend's next run shortly before one of its runs is expected to end (see
   * {@link DispatcherOptions.ahead}): by default {@link DEFAULT_AHEAD_LEAD_MS} before; `false`: never.
   */
  readonly ahead?: { readonly leadMs: number } | false;
  readonly timers: Timers;
  readonly log: Logger;
  /** Where the recording of previews logs; default `log`. */
  readonly previewLog?: Logger;
  /** Told of every change of a followed run's state (for tests and tracing). */
  readonly onTransition?: (change: Transition) => void;
}

/** Not started: call `start()`, and `stop()` to release its claims. */
export function createDispatcher(p: RunloadPorts, limits: LimitsConfig, settings: DispatcherSettings): Dispatcher {
  const lifecycle = new RunLifecycle(p.runs, p.assets, p.blobs, p.workSignal, p.clock, limits.retention);
  // A run lasts max_run_seconds at most: its preview outlives it even if no instance says it ended.
  const previews = new RecordPreviews(p.previews, settings.previewLog ?? settings.log, { keepWhileRunningMs: limits.max_run_seconds * 1000 + PREVIEW_KEEP_AFTER_END_MS });
  return new Dispatcher(
    { runs: p.runs, appVersions: p.appVersions, assets: p.assets, blobs: p.blobs, executor: p.executor, lifecycle, signal: p.workSignal, clock: p.clock, timers: settings.timers, previews },
    {
      owner: settings.owner,
      leaseMs: settings.leaseMs,
      depth: settings.depth,
      ...(settings.ahead === false ? {} : { ahead: settings.ahead ?? { leadMs: DEFAULT_AHEAD_LEAD_MS } }),
      maxQueueSeconds: limits.max_queue_seconds,
      maxRunSeconds: limits.max_run_seconds,
      sweepMs: Math.min(2000, settings.leaseMs / 3),
      backendGraceMs: settings.leaseMs,
      maxAttempts: limits.max_attempts,
      log: settings.log,
      ...(settings.onTransition ? { onTransition: settings.onTransition } : {}),
    },
  );
}
