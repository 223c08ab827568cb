import { expect } from 'chai';
import { CoreError, Dispatcher, RunLifecycle, type ExecutionJob, type Run } from '@runload/core';
import { IN_MEMORY_BACKEND, InMemoryExecutor } from '@runload/core/testing';
import { bytes, makeWorld, TINY_PNG } from './fixture.js';

async function eventually<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 3000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function setup(options: { maxRunSeconds?: number; maxQueueSeconds?: number; limits?: unknown; depth?: number } = {}) {
  const executor = new InMemoryExecutor();
  const w = await makeWorld({ executor, ...(options.limits ? { limits: options.limits } : {}) });
  const p = await w.principal('ultra');
  const lifecycle = new RunLifecycle(w.ports.runs, w.ports.assets, w.ports.blobs, w.ports.gpuLedger, w.ports.workSignal, w.clock);
  const logs: string[] = [];
  const make = (owner = 'instance-a') =>
    new Dispatcher(
      { runs: w.ports.runs, appVersions: w.ports.appVersions, assets: w.ports.assets, blobs: w.ports.blobs, executor, lifecycle, signal: w.ports.workSignal, clock: w.clock },
      {
        owner,
        leaseMs: 30_000,
        depth: options.depth ?? 1,
        maxQueueSeconds: options.maxQueueSeconds ?? 3600,
        maxRunSeconds: options.maxRunSeconds ?? 1800,
        sweepMs: 60_000,
        backendGraceMs: 0,
        log: (_l, m) => logs.push(m),
      },
    );
  const dispatcher = make();
  const create = async (inputs: Record<string, unknown> = {}) =>
    (await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs } })).run;
  const status = (id: string, s: Run['status']) => eventually(async () => {
    const run = await w.ports.runs.get(id);
    return run?.status === s ? run : null;
  }, `run ${id} to be ${s}`);
  const submitted = (id: string) => eventually(async () => executor.job(id), `run ${id} to reach the backend`);
  /** Runs `before` in every submit until restored, ahead of the backend getting the job (which `before` may replace). */
  const onSubmit = (before: (job: ExecutionJob) => Promise<ExecutionJob | void>) => {
    const original = executor.submit.bind(executor);
    executor.submit = async (backendId, job) => original(backendId, (await before(job)) ?? job);
    return () => {
      executor.submit = original;
    };
  };
  /** Starts dispatching; a run is sent, and its backend runs it for 2 s and reports one output, out.png. */
  const finishedRun = async () => {
    await dispatcher.start();
    const run = await create();
    await submitted(run.id);
    const start = w.clock.nowMs();
    executor.start(run.id, start);
    executor.succeed(run.id, [{ nodeId: '4', filename: 'out.png', contentType: 'image/png', bytes: TINY_PNG }], { startedAtMs: start, finishedAtMs: start + 2000 });
    return run;
  };
  return { w, p, executor, dispatcher, make, create, status, submitted, onSubmit, finishedRun, logs };
}

describe('Dispatcher', () => {
  it('dispatches a run with its media, follows it, stores its outputs and charges its GPU time', async () => {
    const t = await setup();
    await t.dispatcher.start();
    const image = await t.w.api.uploadAsset.execute({ accountId: t.p.account.id, filename: 'in.png', content: bytes(TINY_PNG), maxBytes: 1000 });
    const run = await t.create({ '1:image': image.id, '2:blur_radius': 9 });
    const job = await t.submitted(run.id);
    expect(job.inputs).to.deep.equal({ '1:image': image.id, '2:blur_radius': 9 });
    expect(Object.keys(job.media)).to.deep.equal(['1:image']);
    const start = t.w.clock.nowMs() + 1500;
    t.executor.start(run.id, start);
    const running = await t.status(run.id, 'running');
    expect(running.metrics.queueMs).to.equal(1500);
    t.executor.progress(run.id, 4, 4, '2');
    await eventually(async () => (await t.w.ports.runs.get(run.id))?.progress, 'progress');
    t.executor.succeed(run.id, [{ nodeId: '4', filename: 'out_00001_.png', contentType: 'image/png', bytes: TINY_PNG }], { startedAtMs: start, finishedAtMs: start + 2500 });
    const done = await t.status(run.id, 'succeeded');
    expect(done.metrics).to.deep.equal({ queueMs: 1500, runMs: 2500, gpuSeconds: 2.5 });
    expect(done.outputs).to.have.length(1);
    const output = done.outputs[0];
    const content = await t.w.api.getAsset.content(t.p, output?.assetId ?? '', null);
    expect(content.asset).to.include({ filename: 'out_00001_.png', contentType: 'image/png', accountId: t.p.account.id });
    const overview = await t.w.api.accountOverview.execute(t.p);
    expect(overview.quota.used).to.equal(2.5);
    await t.dispatcher.stop();
    expect(t.executor.submitted).to.have.length(1);
  });

  it("stores a finished run's outputs at the next sweep when reading them failed the first time", async () => {
    const t = await setup();
    const original = t.executor.fetchOutput.bind(t.executor);
    let failures = 1;
    t.executor.fetchOutput = async (backendId, ref) => {
      if (failures-- > 0) throw new CoreError('SERVICE_UNAVAILABLE', 'the backend went away for a moment');
      return original(backendId, ref);
    };
    const run = await t.finishedRun();
    await eventually(async () => t.logs.includes('dispatcher task failed'), 'the first attempt to fail');
    expect((await t.w.ports.runs.get(run.id))?.status, 'still running after the failed attempt').to.equal('running');
    await (t.dispatcher as unknown as { sweep(): Promise<void> }).sweep();
    const done = await t.status(run.id, 'succeeded');
    expect(done.outputs).to.have.length(1);
    expect((await t.w.api.accountOverview.execute(t.p)).quota.used, 'charged once').to.equal(2);
    await t.dispatcher.stop();
  });

  it('fails a run OUTPUTS_UNREADABLE, charged its execution time, when its outputs can never be read', async () => {
    const t = await setup();
    t.executor.fetchOutput = async () => {
      throw new CoreError('SERVICE_UNAVAILABLE', 'output out.png is gone');
    };
    const run = await t.finishedRun();
    const sweep = () => (t.dispatcher as unknown as { sweep(): Promise<void> }).sweep();
    await eventually(async () => t.logs.includes('dispatcher task failed'), 'the first attempt to fail');
    for (let i = 0; i < 10 && (await t.w.ports.runs.get(run.id))?.status === 'running'; i += 1) await sweep().catch(() => undefined);
    const failed = await t.status(run.id, 'failed');
    expect(failed.error?.code).to.equal('OUTPUTS_UNREADABLE');
    expect(failed.error?.message).to.include('output out.png is gone');
    expect(failed.metrics.gpuSeconds, 'the backend executed it').to.equal(2);
    expect((await t.w.api.accountOverview.execute(t.p)).quota.used).to.equal(2);
    await t.dispatcher.stop();
  });

  it('goes on with the other runs when one cannot be settled: a later run still meets its time limit', async () => {
    const t = await setup({ depth: 2, maxRunSeconds: 60 });
    t.executor.fetchOutput = async () => {
      throw new CoreError('SERVICE_UNAVAILABLE', 'output gone');
    };
    await t.dispatcher.start();
    const stuck = await t.create();
    const slow = await t.create();
    await t.submitted(stuck.id);
    await t.submitted(slow.id);
    const start = t.w.clock.nowMs();
    t.executor.start(stuck.id, start);
    t.executor.start(slow.id, start);
    await t.status(slow.id, 'running');
    t.executor.succeed(stuck.id, [{ nodeId: '4', filename: 'out.png', contentType: 'image/png', bytes: TINY_PNG }], { startedAtMs: start, finishedAtMs: start + 1 });
    await eventually(async () => t.logs.includes('dispatcher task failed'), 'the outputs of the first run to fail');
    t.w.clock.advance(61_000);
    await (t.dispatcher as unknown as { sweep(): Promise<void> }).sweep();
    expect((await t.status(slow.id, 'failed')).error?.code).to.equal('RUN_TIMEOUT');
    await t.dispatcher.stop();
  });

  it('fails a run the backend refuses with VALIDATION_ERROR, and a node error with EXECUTION_ERROR', async () => {
    const t = await setup();
    await t.dispatcher.start();
    t.executor.rejectNext = { code: 'VALIDATION_ERROR', message: 'Prompt outputs failed validation', nodeId: null, nodeType: null, details: { '1': {} } };
    const refused = await t.create();
    const failed = await t.status(refused.id, 'failed');
    expect(failed.error?.code).to.equal('VALIDATION_ERROR');
    expect(failed.metrics.gpuSeconds).to.equal(null);
    const run = await t.create();
    await t.submitted(run.id);
    t.executor.start(run.id, t.w.clock.nowMs());
    t.executor.fail(run.id, { code: 'EXECUTION_ERROR', message: 'boom', nodeId: '2', nodeType: 'ImageBlur' }, { startedAtMs: 0, finishedAtMs: 400 });
    const errored = await t.status(run.id, 'failed');
    expect(errored.error).to.deep.include({ code: 'EXECUTION_ERROR', nodeId: '2', nodeType: 'ImageBlur' });
    expect(errored.metrics.gpuSeconds).to.equal(0.4);
    await t.dispatcher.stop();
  });

  it('cancels a run queued on the backend and one that is running', async () => {
    const t = await setup();
    await t.dispatcher.start();
    const queued = await t.create();
    await t.submitted(queued.id);
    expect((await t.w.api.cancelRun.execute(t.p, queued.id)).status).to.equal('canceling');
    expect((await t.status(queued.id, 'canceled')).metrics.gpuSeconds).to.equal(null);
    const running = await t.create();
    await t.submitted(running.id);
    t.executor.start(running.id, t.w.clock.nowMs());
    await t.status(running.id, 'running');
    expect((await t.w.api.cancelRun.execute(t.p, running.id)).status).to.equal('canceling');
    await t.status(running.id, 'canceled');
    await t.dispatcher.stop();
  });

  it('dispatches a run again when its backend forgets it before it starts, and fails it BACKEND_LOST after', async () => {
    const t = await setup();
    await t.dispatcher.start();
    const early = await t.create();
    await t.submitted(early.id);
    t.executor.forget(early.id);
    await eventually(async () => t.executor.submitted.filter((j) => j.runId === early.id).length === 2, 'second dispatch');
    t.executor.start(early.id, t.w.clock.nowMs());
    await t.status(early.id, 'running');
    t.executor.forget(early.id);
    const lost = await t.status(early.id, 'failed');
    expect(lost.error?.code).to.equal('BACKEND_LOST');
    expect(lost.metrics.gpuSeconds).to.equal(null);
    await t.dispatcher.stop();
  });

  it('never sends a run twice when its own sweep runs while the prompt is being sent', async () => {
    const t = await setup();
    const restore = t.onSubmit(async () => {
      // The backend does not know the run yet: a reconciliation now must not requeue it.
      await (t.dispatcher as unknown as { sweep(): Promise<void> }).sweep();
    });
    const run = await t.create();
    await t.dispatcher.start();
    await t.submitted(run.id);
    restore();
    t.executor.start(run.id, t.w.clock.nowMs());
    t.executor.succeed(run.id, [], { startedAtMs: 0, finishedAtMs: 10 });
    await t.status(run.id, 'succeeded');
    expect(t.executor.submitted.filter((j) => j.runId === run.id)).to.have.length(1);
    await t.dispatcher.stop();
  });

  it('settles a run canceled while its prompt was being sent as canceled at once, and never sends it', async () => {
    const t = await setup();
    t.onSubmit(async (job) => {
      // The run already names its backend, so the cancel only asks for it (canceling).
      expect((await t.w.api.cancelRun.execute(t.p, job.runId)).status).to.equal('canceling');
    });
    const run = await t.create();
    await t.dispatcher.start();
    // Well within the 30 s lease: the run does not wait for another dispatcher's sweep.
    const canceled = await t.status(run.id, 'canceled');
    expect(t.executor.submitted).to.have.length(0);
    expect(canceled.leaseOwner).to.equal(null);
    expect(canceled.metrics.gpuSeconds).to.equal(null);
    await t.dispatcher.stop();
  });

  it('applies a cancel that comes while the prompt is on its way once the backend has it', async () => {
    const t = await setup();
    t.onSubmit(async (job) => {
      // The claim is verified, then the cancel comes before the prompt reaches the backend.
      expect(await job.stillClaimed?.()).to.equal(true);
      expect((await t.w.api.cancelRun.execute(t.p, job.runId)).status).to.equal('canceling');
      await new Promise((r) => setTimeout(r, 20));
      const { stillClaimed: _verified, ...rest } = job;
      return rest;
    });
    const run = await t.create();
    await t.dispatcher.start();
    await t.status(run.id, 'canceled');
    expect(t.executor.submitted.map((j) => j.runId), 'the prompt was sent').to.deep.equal([run.id]);
    expect(t.executor.job(run.id), 'and taken off the backend again').to.equal(undefined);
    await t.dispatcher.stop();
  });

  it('does not send a prompt once another dispatcher has taken the run over', async () => {
    const t = await setup();
    t.onSubmit(async (job) => {
      // This dispatcher stalled past its lease; another took the run over meanwhile.
      t.w.clock.advance(30_001);
      await t.w.ports.runs.update(job.runId, { leaseOwner: 'instance-b' });
    });
    const run = await t.create();
    await t.dispatcher.start();
    await eventually(async () => t.logs.some((l) => l.startsWith('claim lost')), 'the dispatcher to give the run up');
    expect(t.executor.submitted).to.have.length(0);
    expect((await t.w.ports.runs.get(run.id))?.leaseOwner).to.equal('instance-b');
    await t.dispatcher.stop();
  });

  it('ignores a late "lost" of an earlier following once the run is dispatched anew', async () => {
    const t = await setup();
    const listeners: ((event: { type: 'lost' }) => void)[] = [];
    const follow = t.executor.follow.bind(t.executor);
    t.executor.follow = (backendId, runId, listener) => {
      listeners.push(listener as (event: { type: 'lost' }) => void);
      return follow(backendId, runId, listener);
    };
    await t.dispatcher.start();
    const run = await t.create();
    await t.submitted(run.id);
    t.executor.forget(run.id); // the backend forgets it before it starts: queued and sent again
    await eventually(async () => t.executor.submitted.length === 2 && t.executor.job(run.id), 'the second dispatch');
    await eventually(async () => listeners.length === 2, 'the second following');
    listeners[0]?.({ type: 'lost' }); // the first following's news arrives late
    await new Promise((r) => setTimeout(r, 50));
    expect(t.executor.submitted, 'sent twice in all, never a third time').to.have.length(2);
    expect((await t.w.ports.runs.get(run.id))?.backendId).to.equal(IN_MEMORY_BACKEND);
    await t.dispatcher.stop();
  });

  it('frees a run it dropped after an unexpected error when its lease lapses, and dispatches it again', async () => {
    const t = await setup();
    const restore = t.onSubmit(async () => {
      restore();
      throw new Error('the input could not be read');
    });
    const run = await t.create();
    await t.dispatcher.start();
    await eventually(async () => t.logs.includes('dispatcher task failed'), 'the first dispatch to fail');
    const internals = t.dispatcher as unknown as { sweep(): Promise<void>; renewLeases(): Promise<number> };
    t.w.clock.advance(20_000);
    expect(await internals.renewLeases(), 'a dropped run keeps no lease').to.equal(0);
    t.w.clock.advance(10_001);
    await internals.sweep();
    await t.submitted(run.id);
    expect((await t.w.ports.runs.get(run.id))?.status).to.equal('queued');
    await t.dispatcher.stop();
  });

  it('requeues a run when the backend is unreachable at submit', async () => {
    const t = await setup();
    const run = await t.create();
    t.executor.available = false;
    await t.dispatcher.start();
    t.executor.available = true;
    t.dispatcher.wake();
    await t.submitted(run.id);
    expect((await t.w.ports.runs.get(run.id))?.status).to.equal('queued');
    await t.dispatcher.stop();
  });

  it('fails a run past its time limit with RUN_TIMEOUT and expires a run that never started', async () => {
    const t = await setup({ maxRunSeconds: 10, maxQueueSeconds: 60 });
    const stale = await t.create();
    t.executor.available = false;
    t.w.clock.advance(61_000);
    const d = t.make('sweeper');
    await d.start();
    expect((await t.w.ports.runs.get(stale.id))?.status).to.equal('expired');
    await d.stop();
    t.executor.available = true;
    await t.dispatcher.start();
    const run = await t.create();
    await t.submitted(run.id);
    t.executor.start(run.id, t.w.clock.nowMs());
    await t.status(run.id, 'running');
    await t.dispatcher.stop();
    t.w.clock.advance(11_000);
    const again = t.make();
    await again.start();
    const failed = await t.status(run.id, 'failed');
    expect(failed.error?.code).to.equal('RUN_TIMEOUT');
    await again.stop();
  });

  it('never starts a run past its queue time, even before a sweep expires it', async () => {
    const t = await setup({ maxQueueSeconds: 4 });
    await t.dispatcher.start();
    const busy = await t.create();
    await t.submitted(busy.id);
    const late = await t.create();
    // The backend frees up 4.2 s later, between two sweeps (one a minute here).
    t.w.clock.advance(4200);
    const fresh = await t.create();
    const start = t.w.clock.nowMs();
    t.executor.start(busy.id, start);
    t.executor.succeed(busy.id, [], { startedAtMs: start, finishedAtMs: start + 10 });
    await t.status(busy.id, 'succeeded');
    // The fresh run, behind the late one in the queue, is sent: the late one was passed by.
    await t.submitted(fresh.id);
    expect(t.executor.job(late.id), 'the run past its queue time never reached the backend').to.equal(undefined);
    expect((await t.w.ports.runs.get(late.id))?.status).to.equal('queued');
    await t.dispatcher.stop();
  });

  it('a new dispatcher takes over runs whose dispatcher died, and settles those that finished meanwhile', async () => {
    const t = await setup();
    await t.dispatcher.start();
    const a = await t.create();
    await t.submitted(a.id);
    t.executor.start(a.id, t.w.clock.nowMs());
    await t.status(a.id, 'running');
    // The first dispatcher dies without releasing its leases.
    (t.dispatcher as unknown as { stopping: boolean }).stopping = true;
    t.executor.succeed(a.id, [], { startedAtMs: 0, finishedAtMs: 1000 });
    t.w.clock.advance(31_000);
    const other = t.make('instance-b');
    await other.start();
    const done = await t.status(a.id, 'succeeded');
    expect(done.metrics.gpuSeconds).to.equal(1);
    expect(t.executor.submitted.filter((j) => j.runId === a.id)).to.have.length(1);
    await other.stop();
    expect(IN_MEMORY_BACKEND).to.equal(done.backendId);
  });

  it('reads the run only for the events it records: node events and throttled progress ticks cost no database read', async () => {
    const t = await setup();
    await t.dispatcher.start();
    const run = await t.create();
    await t.submitted(run.id);
    t.executor.start(run.id, t.w.clock.nowMs());
    await t.status(run.id, 'running');
    const runs = t.w.ports.runs;
    const get = runs.get.bind(runs);
    let reads = 0;
    runs.get = async (id) => {
      if (id === run.id) reads += 1;
      return get(id);
    };
    try {
      for (const node of ['1', '2', '3']) t.executor.executing(run.id, node);
      t.executor.progress(run.id, 1, 4, '2');
      t.executor.progress(run.id, 2, 4, '2');
      t.executor.progress(run.id, 4, 4, '2');
      await eventually(async () => (await get(run.id))?.progress?.value === 4, 'the last progress tick to be written');
    } finally {
      runs.get = get;
    }
    // The first tick and the node's completion are written; the rest is skipped before any read.
    expect(reads).to.equal(2);
    t.executor.succeed(run.id, [], { startedAtMs: t.w.clock.nowMs(), finishedAtMs: t.w.clock.nowMs() + 10 });
    await t.status(run.id, 'succeeded');
    await t.dispatcher.stop();
  });
});
