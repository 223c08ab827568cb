/**
 * The prompts of one claim, prepared while the claim reserves their runs. A run's job needs a read
 * of its input assets; started as soon as placement picks the run, that read goes alongside the
 * claim's reserving write instead of after it, and the prompt leaves one statement sooner. A run
 * another claim takes meanwhile wastes its read, nothing more: a queued run's assets cannot be
 * deleted, so reading them before the reservation sees what reading after it would. Placement may
 * also pick a backend another instance's claim holds, and the run is then passed by: no more jobs
 * are prepared than the claim may take, so such runs waste a bounded number of reads.
 * @module
 */
import type { Run } from '../../domain/run.js';
import type { ExecutionJob } from '../../ports/executor.js';
import { buildExecutionJob } from '../build-execution-job.js';
import type { DispatchContext } from './context.js';

export class JobsAhead {
  private readonly jobs = new Map<string, Promise<ExecutionJob>>();

  /** @param limit the most runs the claim may take */
  constructor(
    private readonly ctx: DispatchContext,
    private readonly limit: number,
  ) {}

  /** Starts building the job of a run placement picked (once per run, and `limit` runs at most). */
  prepare(run: Run): void {
    if (this.jobs.has(run.id) || this.jobs.size >= this.limit) return;
    const { appVersions, assets, blobs } = this.ctx.deps;
    const job = buildExecutionJob(run, appVersions, assets, blobs);
    // Its failure belongs to the run's submit, which awaits it; a run not claimed after all drops it.
    job.catch(() => undefined);
    this.jobs.set(run.id, job);
  }

  /** The job prepared for a claimed run, if placement picked it in this claim. */
  take(runId: string): Promise<ExecutionJob> | undefined {
    return this.jobs.get(runId);
  }
}
