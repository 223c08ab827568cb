/**
 * The contract of the Executor port, run by the in-memory backend and by the ComfyUI client
 * against the fake ComfyUI. A driver lets the suite make the backend hold, fail or forget runs.
 * @module
 */
import { expect } from 'chai';
import { CoreError } from '../domain/errors.js';
import type { ExecutionEvent, ExecutionJob, Executor } from '../ports/executor.js';

export interface ExecutorDriver {
  readonly executor: Executor;
  readonly backendId: string;
  /** A job the backend accepts (its workflow valid there). */
  job(runId: string): ExecutionJob;
  /** A job the backend refuses at validation. */
  invalidJob(runId: string): ExecutionJob;
  /** Keeps the next runs from starting until `release`. */
  hold(): Promise<void> | void;
  release(runId: string): Promise<void> | void;
  /** Runs from now on take long enough to be interrupted (or, scripted, wait for `whenRunning`). */
  slowDown(): Promise<void> | void;
  /** Resolves once the run executes on the backend (a scripted backend starts it here). */
  whenRunning(runId: string): Promise<void>;
  /** The next run to execute fails at a node. */
  failNext(): Promise<void> | void;
  /** The backend forgets everything (a restart). */
  forgetAll(): Promise<void>;
  teardown(): Promise<void>;
}

let n = 0;
function runId(): string {
  n += 1;
  return `0000000c-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

function until(executor: Executor, backendId: string, id: string): Promise<ExecutionEvent[]> {
  const events: ExecutionEvent[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no end for ${id}: ${JSON.stringify(events)}`)), 10_000);
    const stop = executor.follow(backendId, id, (e) => {
      if (e.type === 'preview') return; // previews are news of their own, whose number no backend promises
      events.push(e);
      if (e.type === 'finished' || e.type === 'lost') {
        clearTimeout(timer);
        stop();
        resolve(events);
      }
    });
  });
}

export function describeExecutorContract(name: string, setup: () => Promise<ExecutorDriver>): void {
  describe(`executor contract: ${name}`, function () {
    this.timeout(20_000);
    let d: ExecutorDriver;
    beforeEach(async () => (d = await setup()));
    afterEach(async () => d.teardown());

    it('reports itself available with the backend listed', async () => {
      const health = await d.executor.health();
      expect(health.available).to.equal(true);
      expect(health.backends.map((b) => b.id)).to.include(d.backendId);
    });

    it('runs a job to succeeded with outputs that can be read', async () => {
      const id = runId();
      expect(await d.executor.submit(d.backendId, d.job(id))).to.deep.equal({ accepted: true });
      const events = await until(d.executor, d.backendId, id);
      const last = events[events.length - 1];
      if (last?.type !== 'finished' || last.result.state !== 'succeeded') throw new Error(`unexpected ${JSON.stringify(last)}`);
      expect(last.result.outputs.length).to.be.greaterThan(0);
      const out = await d.executor.fetchOutput(d.backendId, last.result.outputs[0] as never);
      let size = 0;
      for await (const chunk of await out.open()) size += chunk.byteLength;
      expect(size).to.be.greaterThan(0);
    });

    it('reports a run that finished before anyone followed it, once', async () => {
      const id = runId();
      await d.executor.submit(d.backendId, d.job(id));
      let state = await d.executor.inspect(d.backendId, id);
      for (let i = 0; i < 500 && (state.state === 'queued' || state.state === 'running'); i += 1) {
        await new Promise((r) => setTimeout(r, 20));
        state = await d.executor.inspect(d.backendId, id);
      }
      expect(state.state).to.equal('succeeded');
      const events = await until(d.executor, d.backendId, id);
      expect(events.filter((e) => e.type === 'finished' || e.type === 'lost')).to.have.length(1);
      const last = events.at(-1);
      expect(last?.type === 'finished' && last.result.state).to.equal('succeeded');
    });

    it('refuses an invalid job with VALIDATION_ERROR, queueing nothing', async () => {
      const id = runId();
      const result = await d.executor.submit(d.backendId, d.invalidJob(id));
      expect(result.accepted).to.equal(false);
      if (!result.accepted) expect(result.error.code).to.equal('VALIDATION_ERROR');
      expect((await d.executor.inspect(d.backendId, id)).state).to.equal('unknown');
    });

    it('reports a node failure as failed with EXECUTION_ERROR', async () => {
      const id = runId();
      await d.failNext();
      await d.executor.submit(d.backendId, d.job(id));
      const events = await until(d.executor, d.backendId, id);
      const last = events[events.length - 1];
      expect(last?.type === 'finished' && last.result.state).to.equal('failed');
      if (last?.type === 'finished' && last.result.state === 'failed') expect(last.result.error.code).to.equal('EXECUTION_ERROR');
    });

    it('shows a held run as queued, and a canceled queued run is gone', async () => {
      await d.hold();
      const id = runId();
      await d.executor.submit(d.backendId, d.job(id));
      expect((await d.executor.inspect(d.backendId, id)).state).to.equal('queued');
      await d.executor.cancel(d.backendId, id);
      expect((await d.executor.inspect(d.backendId, id)).state).to.equal('unknown');
      await d.release(id);
    });

    it('interrupts a running run, which then ends interrupted', async () => {
      await d.slowDown();
      const id = runId();
      await d.executor.submit(d.backendId, d.job(id));
      const ended = until(d.executor, d.backendId, id);
      await d.whenRunning(id);
      expect((await d.executor.inspect(d.backendId, id)).state).to.equal('running');
      await d.executor.cancel(d.backendId, id);
      const last = (await ended).at(-1);
      expect(last?.type === 'finished' && last.result.state).to.equal('interrupted');
    });

    it('reports lost when the backend forgets a run, and unknown runs as unknown', async () => {
      await d.hold();
      const id = runId();
      await d.executor.submit(d.backendId, d.job(id));
      const ended = until(d.executor, d.backendId, id);
      await d.forgetAll();
      expect((await ended).at(-1)?.type).to.equal('lost');
      expect((await d.executor.inspect(d.backendId, runId())).state).to.equal('unknown');
    });

    it('answers SERVICE_UNAVAILABLE for a backend it does not know', async () => {
      const error = await d.executor.inspect('http://nowhere.invalid:1', runId()).catch((e: unknown) => e);
      expect(CoreError.hasCode(error, 'SERVICE_UNAVAILABLE')).to.equal(true);
    });
  });
}
