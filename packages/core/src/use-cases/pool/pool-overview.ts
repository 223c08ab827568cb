/**
 * The pool at a glance, for the operator and for autoscalers: every backend with what it holds,
 * the runs queued and running, and why the waiting runs wait: for capacity (some backend could
 * run them, all such are full) or for capability (no backend of the pool can run them).
 * @module
 */
import { isWaiting } from '../../domain/run.js';
import type { Executor } from '../../ports/executor.js';
import type { RunRepository } from '../../ports/run-repository.js';
import type { RunWorkflows } from '../run-workflows.js';
import type { BackendView, ManageBackends } from './manage-backends.js';

export interface PoolOverviewReport {
  readonly backends: readonly BackendView[];
  readonly queued: number;
  readonly running: number;
  readonly waitingForCapacity: number;
  readonly waitingForCapability: number;
}

/** Waiting runs looked at per report (the oldest): enough for a signal, bounded for a scrape. */
const WAITING_LOOKED_AT = 5000;

export class PoolOverview {
  constructor(
    private readonly backends: ManageBackends,
    private readonly runs: RunRepository,
    private readonly executor: Executor,
    private readonly runWorkflows: RunWorkflows,
  ) {}

  async report(now: Date): Promise<PoolOverviewReport> {
    const [backends, queuedRuns, failingOver] = await Promise.all([
      this.backends.list(),
      this.runs.listQueuedBefore(new Date(now.getTime() + 1), WAITING_LOOKED_AT),
      this.runs.listFailingOver(WAITING_LOOKED_AT),
    ]);
    const waiting = [...queuedRuns.filter(isWaiting), ...failingOver];
    const workflows = await this.runWorkflows.ofAll(waiting);
    let capability = 0;
    for (const run of waiting) {
      const work = { workflow: workflows.get(run.appVersionId) ?? {}, inputs: run.inputs, requireLabels: run.requireLabels };
      if (this.executor.missingEverywhere(work) !== null) capability += 1;
    }
    const held = backends.reduce((n, b) => n + b.held, 0);
    const placedQueued = queuedRuns.length - queuedRuns.filter(isWaiting).length;
    return {
      backends,
      queued: queuedRuns.length,
      running: Math.max(0, held - placedQueued) + failingOver.length,
      waitingForCapacity: waiting.length - capability,
      waitingForCapability: capability,
    };
  }
}
