/**
 * A scripted backend in memory. By default it reports itself healthy, offers itself to placement
 * and keeps whatever is submitted queued, so runs stay `queued`:
 * what tests and embedders of the public API need. A test moves runs with `start`, `executing`,
 * `progress`, `succeed`, `fail` or `forget`, or sets `autoRun` to have them succeed on their own.
 * @module
 */
import { CoreError } from '../domain/errors.js';
import type { RunError } from '../domain/run.js';
import { CLAIM_LOST } from '../ports/executor.js';
import type { Preview } from '../ports/preview-store.js';
import type {
  BackendPlacement,
  BackendTiming,
  FollowedRunEvent,
  ExecutionJob,
  ExecutionState,
  Executor,
  ExecutorHealth,
  FetchedOutput,
  OutputRef,
  RunnableWork,
  SubmitResult,
  TerminalExecutionState,
} from '../ports/executor.js';

export const IN_MEMORY_BACKEND = 'memory';

interface Entry {
  readonly job: ExecutionJob;
  state: ExecutionState;
  readonly listeners: Set<(e: FollowedRunEvent) => void>;
}

export interface ScriptedOutput {
  readonly nodeId: string;
  readonly filename: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

export class InMemoryExecutor implements Executor {
  available = true;
  /** Every job submitted, in order (tests check nothing runs twice). */
  readonly submitted: ExecutionJob[] = [];
  /** The next submit is refused with this validation error. */
  rejectNext: RunError | null = null;
  /** When set, accepted runs start and succeed on their own (unless `held`), with one small output. */
  autoRun = false;
  held = false;
  /** With autoRun: the next run fails at a node instead. */
  failNextRun = false;
  private readonly entries = new Map<string, Entry>();
  private readonly files = new Map<string, ScriptedOutput>();

  async health(): Promise<ExecutorHealth> {
    return { available: this.available, backends: [{ id: IN_MEMORY_BACKEND, url: 'memory:', healthy: this.available }] };
  }

  /** Capabilities the backend lacks: a run using one of these strings anywhere in its workflow or inputs is refused. */
  readonly missing = new Set<string>();

  placement(): readonly BackendPlacement[] {
    if (!this.available) return [];
    return [{ id: IN_MEMORY_BACKEND, foreignPrompts: 0 }];
  }

  missingEverywhere(work: RunnableWork): string | null {
    const lack = this.lacks(IN_MEMORY_BACKEND, work);
    return lack === null ? null : `no backend has ${lack}`;
  }

  lacks(_backendId: string, work: RunnableWork): string | null {
    const used = JSON.stringify([work.workflow, work.inputs]);
    for (const thing of this.missing) if (used.includes(JSON.stringify(thing))) return thing;
    return null;
  }

  async submit(_backendId: string, job: ExecutionJob): Promise<SubmitResult> {
    if (!this.available) throw new CoreError('SERVICE_UNAVAILABLE', 'The in-memory backend is switched off');
    if (job.stillClaimed && !(await job.stillClaimed())) throw new CoreError('INVALID_TRANSITION', CLAIM_LOST);
    if (this.rejectNext) {
      const error = this.rejectNext;
      this.rejectNext = null;
      return { accepted: false, error };
    }
    this.submitted.push(job);
    this.entries.set(job.runId, { job, state: { state: 'queued', position: 0 }, listeners: new Set() });
    if (this.autoRun && !this.held) setTimeout(() => this.runScripted(job.runId), 1);
    return { accepted: true };
  }

  async inspect(backendId: string, runId: string): Promise<ExecutionState> {
    if (backendId !== IN_MEMORY_BACKEND) throw new CoreError('SERVICE_UNAVAILABLE', `no backend ${backendId}`);
    if (!this.available) throw new CoreError('SERVICE_UNAVAILABLE', 'The in-memory backend is switched off');
    return this.entries.get(runId)?.state ?? { state: 'unknown' };
  }

  follow(_backendId: string, runId: string, listener: (event: FollowedRunEvent) => void): () => void {
    const entry = this.entries.get(runId);
    if (!entry) {
      queueMicrotask(() => listener({ type: 'lost' }));
      return () => undefined;
    }
    entry.listeners.add(listener);
    const s = entry.state;
    if (s.state === 'succeeded' || s.state === 'failed' || s.state === 'interrupted') queueMicrotask(() => listener({ type: 'finished', result: s }));
    return () => entry.listeners.delete(listener);
  }

  async fetchOutput(_backendId: string, ref: OutputRef): Promise<FetchedOutput> {
    const file = this.files.get(`${ref.subfolder}/${ref.filename}`);
    if (!file) throw new CoreError('SERVICE_UNAVAILABLE', `output ${ref.filename} is gone`);
    return {
      filename: file.filename,
      contentType: file.contentType,
      open: async () =>
        (async function* () {
          yield file.bytes;
        })(),
    };
  }

  async cancel(_backendId: string, runId: string): Promise<void> {
    const entry = this.entries.get(runId);
    if (!entry) return;
    if (entry.state.state === 'queued') this.entries.delete(runId);
    else if (entry.state.state === 'running') this.finish(runId, { state: 'interrupted', timing: null });
  }

  async close(): Promise<void> {
    this.entries.clear();
  }

  /** With autoRun: starts and finishes a queued run as scripted. */
  runScripted(runId: string): void {
    const entry = this.entries.get(runId);
    if (!entry || entry.state.state !== 'queued') return;
    const at = Date.now();
    this.start(runId, at);
    if (this.failNextRun) {
      this.failNextRun = false;
      this.fail(runId, { code: 'EXECUTION_ERROR', message: 'scripted failure', nodeId: '1', nodeType: 'Scripted' }, { startedAtMs: at, finishedAtMs: at + 1 });
      return;
    }
    this.succeed(runId, [{ nodeId: '1', filename: `${runId}.png`, contentType: 'image/png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) }], { startedAtMs: at, finishedAtMs: at + 1 });
  }

  /** Forgets every run, as a restarted backend does. */
  forgetAll(): void {
    for (const id of [...this.entries.keys()]) this.forget(id);
  }

  /** The job of a submitted run (to check applied inputs). */
  job(runId: string): ExecutionJob | undefined {
    return this.entries.get(runId)?.job;
  }

  start(runId: string, atMs: number): void {
    const entry = this.require(runId);
    entry.state = { state: 'running' };
    this.emit(entry, { type: 'started', atMs });
  }

  executing(runId: string, nodeId: string): void {
    this.emit(this.require(runId), { type: 'executing', nodeId });
  }

  progress(runId: string, value: number, max: number, nodeId: string | null = null): void {
    this.emit(this.require(runId), { type: 'progress', value, max, nodeId });
  }

  /** The backend announces the run's end; its outcome is told later (succeed, fail). */
  announceEnd(runId: string): void {
    this.emit(this.require(runId), { type: 'ended' });
  }

  /** The backend sends a preview image of the running run. */
  preview(runId: string, preview: Preview): void {
    this.emit(this.require(runId), { type: 'preview', preview });
  }

  succeed(runId: string, outputs: readonly ScriptedOutput[], timing: BackendTiming): void {
    for (const o of outputs) this.files.set(`${runId}/${o.filename}`, o);
    const refs = outputs.map((o) => ({ nodeId: o.nodeId, filename: o.filename, subfolder: runId, type: 'output' }));
    this.finish(runId, { state: 'succeeded', outputs: refs, timing });
  }

  fail(runId: string, error: RunError, timing: BackendTiming | null): void {
    this.finish(runId, { state: 'failed', error, timing });
  }

  /** The backend forgets the run, as a restarted ComfyUI does. */
  forget(runId: string): void {
    const entry = this.require(runId);
    this.entries.delete(runId);
    this.emit(entry, { type: 'lost' });
  }

  private finish(runId: string, result: TerminalExecutionState): void {
    const entry = this.require(runId);
    entry.state = result;
    this.emit(entry, { type: 'finished', result });
  }

  private emit(entry: Entry, event: FollowedRunEvent): void {
    for (const l of [...entry.listeners]) l(event);
  }

  private require(runId: string): Entry {
    const entry = this.entries.get(runId);
    if (!entry) throw new Error(`the in-memory backend has no run ${runId}`);
    return entry;
  }
}
