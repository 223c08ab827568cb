import { expect } from 'chai';
import { CancelRun, CoreError, Dispatcher, RunLifecycle, WORK_REASONS, type ExecutionEvent, type ExecutionJob, type Executor, type Run, type RunRepository, type Transition, type WorkSignal } from '@runload/core';
import { IN_MEMORY_BACKEND, InMemoryExecutor, ManualTimers } from '@runload/core/testing';
import { bytes, makeWorld, TINY_PNG } from './fixture.js';

const SWEEP_MS = 1000;
const LEASE_MS = 30_000;
/** How long before a run's expected end its backend's next run is claimed, where runs are claimed ahead. */
const LEAD_MS = 50;
/** How long the run that teaches the dispatcher its app version's runs holds the backend. */
const LEARNED_HOLD_MS = 2000;
const OUT = { nodeId: '4', filename: 'out.png', contentType: 'image/png', bytes: TINY_PNG };

/**
 * An executor as one process sees it: `kill` is that process dying (its sockets drop, its calls
 * fail), while the backend itself and every other process go on.
 */
function processView(inner: InMemoryExecutor): { executor: Executor; kill: () => void } {
  let alive = true;
  const dead = (): never => {
    throw new CoreError('SERVICE_UNAVAILABLE', 'this process is gone');
  };
  const executor: Executor = {
    health: () => inner.health(),
    placement: () => (alive ? inner.placement() : []),
    lacks: (backendId, work) => inner.lacks(backendId, work),
    missingEverywhere: (work) => inner.missingEverywhere(work),
    submit: async (backendId, job) => (alive ? inner.submit(backendId, job) : dead()),
    inspect: async (backendId, runId) => (alive ? inner.inspect(backendId, runId) : dead()),
    follow: (backendId, runId, listener) => inner.follow(backendId, runId, (event) => alive && listener(event)),
    fetchOutput: async (backendId, ref) => (alive ? inner.fetchOutput(backendId, ref) : dead()),
    cancel: async (backendId, runId) => (alive ? inner.cancel(backendId, runId) : dead()),
    close: async () => undefined,
  };
  return { executor, kill: () => (alive = false) };
}

async function setup(options: { maxRunSeconds?: number; maxQueueSeconds?: number; depth?: number; ahead?: boolean; backendGraceMs?: number; lostSignals?: string; maxAttempts?: number } = {}) {
  const backend = new InMemoryExecutor();
  const w = await makeWorld({ executor: backend });
  const p = await w.principal('ultra');
  const lifecycle = new RunLifecycle(w.ports.runs, w.ports.assets, w.ports.blobs, w.ports.workSignal, w.clock);
  const logs: string[] = [];
  const transitions: Transition[] = [];
  const waiters = new Set<() => void>();
  // A notification that never arrives (Redis down, say): the dispatcher must not depend on it.
  const signal: WorkSignal = {
    notify: (reason, from) => w.ports.workSignal.notify(reason, from),
    subscribe: (listener) => w.ports.workSignal.subscribe((reason, from) => reason !== options.lostSignals && listener(reason, from)),
    announce: (change) => w.ports.workSignal.announce(change),
    subscribeChanges: (listener) => w.ports.workSignal.subscribeChanges(listener),
  };
  const make = (owner = 'instance-a', executor: Executor = backend) => {
    const timers = new ManualTimers(w.clock);
    const dispatcher = new Dispatcher(
      { runs: w.ports.runs, appVersions: w.ports.appVersions, assets: w.ports.assets, blobs: w.ports.blobs, executor, lifecycle, signal, clock: w.clock, timers },
      {
        owner,
        leaseMs: LEASE_MS,
        depth: options.depth ?? 1,
        ...(options.ahead ? { ahead: { leadMs: LEAD_MS } } : {}),
        maxQueueSeconds: options.maxQueueSeconds ?? 3600,
        maxRunSeconds: options.maxRunSeconds ?? 1800,
        sweepMs: SWEEP_MS,
        backendGraceMs: options.backendGraceMs ?? 0,
        ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
        log: (_l, m) => logs.push(m),
        onTransition: (change) => {
          transitions.push(change);
          for (const wake of [...waiters]) wake();
        },
      },
    );
    /** Moves time by `ms` (firing this dispatcher's timers on the way) and waits for what that started. */
    const tick = async (ms: number) => {
      await timers.advance(ms);
      await dispatcher.idle();
    };
    return { dispatcher, timers, tick, sweep: () => tick(SWEEP_MS) };
  };
  const a = make();
  const create = async (inputs: Record<string, unknown> = {}) =>
    (await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs } })).run;
  /** An image asset of the account, for a run's `1:image`. */
  const uploadImage = () => w.api.uploadAsset.execute({ accountId: p.account.id, filename: 'in.png', content: bytes(TINY_PNG), maxBytes: 1000 });
  const get = async (id: string) => {
    const run = await w.ports.runs.get(id);
    if (!run) throw new Error(`no run ${id}`);
    return run;
  };
  /** Resolves at the first transition (past or to come) that matches; fails after `timeoutMs`. */
  const transition = (matches: (t: Transition) => boolean, what: string, timeoutMs = 3000) =>
    new Promise<Transition>((resolve, reject) => {
      const check = () => {
        const found = transitions.find(matches);
        if (!found) return;
        waiters.delete(check);
        clearTimeout(deadline);
        resolve(found);
      };
      const deadline = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; transitions seen: ${JSON.stringify(transitions)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  /** Runs `before` in every submit until restored, ahead of the backend getting the job (which `before` may replace). */
  const onSubmit = (before: (job: ExecutionJob) => Promise<ExecutionJob | void>) => {
    const original = backend.submit.bind(backend);
    backend.submit = async (backendId, job) => original(backendId, (await before(job)) ?? job);
    return () => {
      backend.submit = original;
    };
  };
  /** Starts dispatching; a run is sent, and its backend runs it for 2 s and reports its outputs (out.png unless told). */
  const finishedRun = async (outputs = [OUT]) => {
    await a.dispatcher.start();
    const run = await create();
    await a.dispatcher.idle();
    const start = w.clock.nowMs();
    backend.start(run.id, start);
    backend.succeed(run.id, outputs, { startedAtMs: start, finishedAtMs: start + 2000 });
    await a.dispatcher.idle();
    return run;
  };
  const sentTimes = (id: string) => backend.submitted.filter((j) => j.runId === id).length;
  /** Starts dispatching; a run is sent and started on its backend, and stays running. */
  const startedRun = async () => {
    await a.dispatcher.start();
    const run = await create();
    await a.dispatcher.idle();
    backend.start(run.id, w.clock.nowMs());
    await a.dispatcher.idle();
    return run;
  };
  return { w, p, backend, a, make, create, uploadImage, get, transition, transitions, onSubmit, finishedRun, startedRun, logs, sentTimes };
}

/**
 * Claiming ahead: one run of the app held the backend `heldMs` and succeeded, which tells the
 * dispatcher how long the app's runs take; then a first run started on the backend.
 */
async function runAfterOneLearned(options: Parameters<typeof setup>[0] = {}, heldMs = LEARNED_HOLD_MS) {
  const t = await setup({ ...options, ahead: true });
  await t.a.dispatcher.start();
  const learned = await t.create();
  await t.a.dispatcher.idle();
  t.w.clock.advance(heldMs);
  const end = t.w.clock.nowMs();
  t.backend.start(learned.id, end - heldMs);
  t.backend.succeed(learned.id, [OUT], { startedAtMs: end - heldMs, finishedAtMs: end });
  await t.a.dispatcher.idle();
  expect((await t.get(learned.id)).status).to.equal('succeeded');
  const first = await t.create();
  await t.a.dispatcher.idle();
  t.backend.start(first.id, t.w.clock.nowMs());
  await t.a.dispatcher.idle();
  return { t, first };
}

/** Claiming ahead: a first run started on the backend, and a second claimed to wait there once the first is due to end. */
async function runWaitingAhead(options: Parameters<typeof setup>[0] = {}) {
  const { t, first } = await runAfterOneLearned(options);
  const second = await t.create();
  await t.a.dispatcher.idle();
  await t.a.tick(LEARNED_HOLD_MS - LEAD_MS);
  expect((await t.get(second.id)).backendId, 'claimed ahead once the first run is due to end').to.equal(IN_MEMORY_BACKEND);
  return { t, first, second };
}

/** A running run whose backend fails the first cancel (or interrupt) asked of it. */
async function runningWithFailingCancel(options: Parameters<typeof setup>[0]) {
  const t = await setup(options);
  await t.a.dispatcher.start();
  const run = await t.create();
  await t.a.dispatcher.idle();
  t.backend.start(run.id, t.w.clock.nowMs());
  await t.a.dispatcher.idle();
    const cancel = t.backend.cancel.bind(t.backend);
    let calls = 0;
    t.backend.cancel = async (backendId, runId) => {
      calls += 1;
      if (calls === 1) throw new CoreError('SERVICE_UNAVAILABLE', 'ComfyUI answered 500');
      return cancel(backendId, runId);
    };
  return { t, run, cancelCalls: () => calls };
}

describe('Dispatcher', () => {
  it('dispatches a run with its media, follows it, stores its outputs and charges its GPU time', async () => {
    const t = await setup();
    await t.a.dispatcher.start();
    const image = await t.uploadImage();
    const run = await t.create({ '1:image': image.id, '2:blur_radius': 9 });
    await t.a.dispatcher.idle();
    const job = t.backend.job(run.id);
    expect(job?.inputs).to.deep.equal({ '1:image': image.id, '2:blur_radius': 9 });
    expect(Object.keys(job?.media ?? {})).to.deep.equal(['1:image']);
    t.w.clock.advance(1500);
    const start = t.w.clock.nowMs();
    t.backend.start(run.id, start);
    await t.a.dispatcher.idle();
    const running = await t.get(run.id);
    expect(running.status).to.equal('running');
    expect(running.metrics.queueMs).to.equal(1500);
    t.backend.progress(run.id, 4, 4, '2');
    await t.a.dispatcher.idle();
    expect((await t.get(run.id)).progress).to.deep.include({ value: 4, max: 4 });
    t.backend.succeed(run.id, [{ ...OUT, filename: 'out_00001_.png' }], { startedAtMs: start, finishedAtMs: start + 2500 });
    await t.a.dispatcher.idle();
    const done = await t.get(run.id);
    expect(done.status).to.equal('succeeded');
    expect(done.metrics).to.deep.equal({ queueMs: 1500, runMs: 2500, gpuSeconds: 2.5 });
    expect(done.outputs).to.have.length(1);
    const content = await t.w.api.getAsset.content(t.p, done.outputs[0]?.assetId ?? '', null);
    expect(content.asset).to.include({ filename: 'out_00001_.png', contentType: 'image/png', accountId: t.p.account.id });
    expect((await t.w.api.accountOverview.execute(t.p)).quota.used).to.equal(2.5);
    expect(t.a.dispatcher.inFlight()).to.equal(0);
    await t.a.dispatcher.stop();
    expect(t.backend.submitted).to.have.length(1);
    expect(t.a.timers.pending(), 'a stopped dispatcher leaves no timer').to.equal(0);
  });

  it('sends the next run to a backend at depth 1 once the backend is done with the run before, while that run\'s outputs are still being read', async () => {
    const t = await setup();
    const original = t.backend.fetchOutput.bind(t.backend);
    let release!: () => void;
    const reading = new Promise<void>((r) => (release = r));
    t.backend.fetchOutput = async (backendId, ref) => {
      await reading;
      return original(backendId, ref);
    };
    await t.a.dispatcher.start();
    const first = await t.create();
    await t.a.dispatcher.idle();
    const start = t.w.clock.nowMs();
    t.backend.start(first.id, start);
    t.backend.succeed(first.id, [OUT], { startedAtMs: start, finishedAtMs: start + 2000 });
    await t.transition((c) => c.runId === first.id && c.to === 'finishing', 'the backend to be done with the first run');
    const second = await t.create();
    await t.transition((c) => c.runId === second.id && c.to === 'sent', 'the second run to be sent');
    expect((await t.get(first.id)).status, 'the first run is still being stored').to.equal('running');
    expect(t.sentTimes(second.id)).to.equal(1);
    release();
    await t.a.dispatcher.idle();
    expect((await t.get(first.id)).status).to.equal('succeeded');
    await t.a.dispatcher.stop();
  });

  it('sends the next run to a backend at depth 1 as soon as the backend announces the end of the run before, before its outcome is read', async () => {
    const t = await setup();
    const first = await t.startedRun();
    const second = await t.create();
    await t.a.dispatcher.idle();
    expect(t.sentTimes(second.id), 'the backend is full while the first run executes').to.equal(0);
    t.backend.announceEnd(first.id);
    await t.transition((c) => c.runId === second.id && c.to === 'sent', 'the second run to be sent');
    expect((await t.get(first.id)).status, 'the first run has no outcome yet').to.equal('running');
    const start = t.w.clock.nowMs();
    t.backend.succeed(first.id, [OUT], { startedAtMs: start - 2000, finishedAtMs: start });
    await t.a.dispatcher.idle();
    expect((await t.get(first.id)).status).to.equal('succeeded');
    expect(t.sentTimes(second.id)).to.equal(1);
    await t.a.dispatcher.stop();
  });

  it('looks for a next run once when a run of its own ends, at the backend\'s end and not again once its outcome is stored; another instance\'s finished run still wakes it', async () => {
    const t = await setup();
    const first = await t.startedRun();
    let claims = 0;
    const claimMany = t.w.ports.runs.claimMany.bind(t.w.ports.runs);
    t.w.ports.runs.claimMany = (request, max) => {
      claims += 1;
      return claimMany(request, max);
    };
    const start = t.w.clock.nowMs();
    t.backend.succeed(first.id, [OUT], { startedAtMs: start - 2000, finishedAtMs: start });
    await t.a.dispatcher.idle();
    expect((await t.get(first.id)).status).to.equal('succeeded');
    expect(claims, 'one claim, when the backend was done with the run').to.equal(1);
    t.w.ports.workSignal.notify(WORK_REASONS.runFinished, 'instance-b');
    await t.a.dispatcher.idle();
    expect(claims, 'a run finished by another instance may have freed room here').to.equal(2);
    await t.a.dispatcher.stop();
  });

  it('claims the next run while its backend executes one, and sends it the moment the backend is done, needing no claim then; held there only once sent', async () => {
    const { t, first, second } = await runWaitingAhead();
    const waiting = await t.get(second.id);
    expect([waiting.status, waiting.backendId, waiting.leaseOwner], 'claimed for the backend while the first run executes').to.deep.equal(['queued', IN_MEMORY_BACKEND, 'instance-a']);
    expect(t.sentTimes(second.id), 'the backend holds one prompt at depth 1').to.equal(0);
    expect((await t.w.ports.runs.heldByBackend()).get(IN_MEMORY_BACKEND), 'held: the first run only').to.equal(1);
    // From now on every claim fails: the second run must not need one.
    t.w.ports.runs.claimMany = async () => {
      throw new CoreError('STORAGE_UNAVAILABLE', 'the database is gone');
    };
    t.backend.announceEnd(first.id);
    await t.transition((c) => c.runId === second.id && c.to === 'sent', 'the second run to be sent');
    const start = t.w.clock.nowMs();
    t.backend.succeed(first.id, [OUT], { startedAtMs: start - 2000, finishedAtMs: start });
    await t.a.dispatcher.idle();
    expect((await t.get(first.id)).status).to.equal('succeeded');
    expect(t.sentTimes(second.id)).to.equal(1);
    expect((await t.w.ports.runs.heldByBackend()).get(IN_MEMORY_BACKEND), 'held: the second run, sent').to.equal(1);
    await t.a.dispatcher.stop();
  });

  it('claims the next run ahead only from the lead before the run on its backend is expected to end, as long as the app\'s runs held it', async () => {
    const { t } = await runAfterOneLearned();
    const second = await t.create();
    await t.a.dispatcher.idle();
    await t.a.tick(LEARNED_HOLD_MS - LEAD_MS - 10);
    const early = await t.get(second.id);
    expect([early.backendId, early.leaseOwner], 'not due yet: fair share has not decided').to.deep.equal([null, null]);
    await t.a.tick(10);
    const due = await t.get(second.id);
    expect([due.status, due.backendId, due.leaseOwner], 'due: claimed to wait, without a new run or a wake').to.deep.equal(['queued', IN_MEMORY_BACKEND, 'instance-a']);
    expect(t.sentTimes(second.id)).to.equal(0);
    await t.a.dispatcher.stop();
  });

  it('claims no run ahead for a run that overruns its app\'s usual time: the next waits in the queue until the backend is free', async () => {
    const { t, first } = await runAfterOneLearned();
    await t.a.tick(LEARNED_HOLD_MS + LEAD_MS + 10);
    const second = await t.create();
    await t.a.dispatcher.idle();
    await t.a.tick(5000);
    expect((await t.get(second.id)).backendId, 'queued on no backend while the first overruns').to.equal(null);
    t.backend.announceEnd(first.id);
    await t.transition((c) => c.runId === second.id && c.to === 'sent', 'the second run to be sent once the backend is free');
    await t.a.dispatcher.stop();
  });

  it('claims no run ahead of an app never seen to end here, nor of runs shorter than two leads', async () => {
    for (const learnedMs of [null, 2 * LEAD_MS - 1]) {
      const { t } = learnedMs === null ? { t: await setup({ ahead: true }) } : await runAfterOneLearned({}, learnedMs);
      if (learnedMs === null) await t.startedRun();
      const second = await t.create();
      await t.a.dispatcher.idle();
      await t.a.tick(LEARNED_HOLD_MS);
      expect((await t.get(second.id)).backendId, `learned ${learnedMs} ms: the next run stays queued`).to.equal(null);
      await t.a.dispatcher.stop();
    }
  });

  it('claims no run ahead unless told: the next run stays in the queue, on no backend, while the backend is full', async () => {
    const t = await setup();
    await t.startedRun();
    const second = await t.create();
    await t.a.dispatcher.idle();
    expect([(await t.get(second.id)).backendId, (await t.get(second.id)).leaseOwner]).to.deep.equal([null, null]);
    await t.a.dispatcher.stop();
  });

  it('hands a run that waited for its backend past its queue time back to the queue, never sending it', async () => {
    const { t, first, second } = await runWaitingAhead({ maxQueueSeconds: 4 });
    expect((await t.get(second.id)).backendId).to.equal(IN_MEMORY_BACKEND);
    t.w.clock.advance(4200);
    t.backend.announceEnd(first.id);
    await t.a.dispatcher.idle();
    expect(t.sentTimes(second.id)).to.equal(0);
    const late = await t.get(second.id);
    expect([late.status, late.backendId], 'queued on no backend, for the sweep to expire').to.deep.equal(['queued', null]);
    await t.a.dispatcher.stop();
  });

  it('never sends a waiting run canceled just as its backend frees up: the cancel wins, or the run is taken out of waiting first and canceled on its backend', async () => {
    const { t, first, second } = await runWaitingAhead();
    // The cancel lands between the backend's end and the waiting run's own write.
    const leaveWaiting = t.w.ports.runs.leaveWaiting.bind(t.w.ports.runs);
    t.w.ports.runs.leaveWaiting = async (id, owner, until) => {
      expect((await t.w.api.cancelRun.execute(t.p, id)).status).to.equal('canceled');
      return leaveWaiting(id, owner, until);
    };
    t.backend.announceEnd(first.id);
    await t.a.dispatcher.idle();
    expect(t.sentTimes(second.id)).to.equal(0);
    expect((await t.get(second.id)).status).to.equal('canceled');
    expect(t.a.dispatcher.inFlight(), 'the first run alone is followed').to.equal(1);
    await t.a.dispatcher.stop();
  });

  it('cancels a run waiting for its backend at once, never sending it', async () => {
    const { t, first, second } = await runWaitingAhead();
    expect((await t.get(second.id)).backendId, 'waiting on the backend').to.equal(IN_MEMORY_BACKEND);
    expect((await t.w.api.cancelRun.execute(t.p, second.id)).status, 'the answer to the cancel').to.equal('canceled');
    await t.a.dispatcher.idle();
    expect((await t.get(second.id)).status).to.equal('canceled');
    expect(t.a.dispatcher.inFlight(), 'the first run alone is followed').to.equal(1);
    t.backend.announceEnd(first.id);
    await t.a.dispatcher.idle();
    expect(t.sentTimes(second.id)).to.equal(0);
    expect((await t.get(first.id)).status, 'the run before it goes on').to.equal('running');
    await t.a.dispatcher.stop();
  });

  it('hands a waiting run back to the queue when its backend takes no more work, and dispatches it once there is room', async () => {
    const { t, first, second } = await runWaitingAhead();
    expect((await t.get(second.id)).backendId).to.equal(IN_MEMORY_BACKEND);
    // Drained: the backend is no longer offered for work.
    const placement = t.backend.placement.bind(t.backend);
    t.backend.placement = () => [];
    t.a.dispatcher.wake();
    await t.a.dispatcher.idle();
    const handedBack = await t.get(second.id);
    expect([handedBack.status, handedBack.backendId, handedBack.leaseOwner]).to.deep.equal(['queued', null, null]);
    t.backend.placement = placement;
    t.backend.announceEnd(first.id);
    await t.transition((c) => c.runId === second.id && c.to === 'sent', 'the second run to be sent');
    expect(t.sentTimes(second.id)).to.equal(1);
    await t.a.dispatcher.stop();
  });

  it('leaves a run waiting for its backend to the next dispatcher when it stops, which sends it once', async () => {
    const { t, first, second } = await runWaitingAhead();
    await t.a.dispatcher.stop();
    expect((await t.get(second.id)).leaseOwner, 'its lease let go').to.equal(null);
    const b = t.make('instance-b');
    await b.dispatcher.start();
    await b.dispatcher.idle();
    const start = t.w.clock.nowMs();
    t.backend.succeed(first.id, [OUT], { startedAtMs: start - 2000, finishedAtMs: start });
    await b.dispatcher.idle();
    await b.sweep();
    expect((await t.get(first.id)).status).to.equal('succeeded');
    expect(t.sentTimes(second.id)).to.equal(1);
    t.backend.start(second.id, t.w.clock.nowMs());
    t.backend.succeed(second.id, [OUT], { startedAtMs: t.w.clock.nowMs(), finishedAtMs: t.w.clock.nowMs() + 10 });
    await b.dispatcher.idle();
    expect((await t.get(second.id)).status).to.equal('succeeded');
    await b.dispatcher.stop();
  });

  it('fails a run whose input asset was deleted before its dispatch VALIDATION_ERROR, naming the input, and never sends it', async () => {
    const t = await setup();
    const image = await t.uploadImage();
    const run = await t.create({ '1:image': image.id, '2:blur_radius': 9 });
    // The delete that raced the run's creation: the record is gone once the dispatcher builds the prompt.
    expect(await t.w.ports.assets.delete(image.id)).to.equal(true);
    await t.a.dispatcher.start();
    await t.a.dispatcher.idle();
    const failed = await t.get(run.id);
    expect(failed.status).to.equal('failed');
    expect(failed.error).to.deep.include({ code: 'VALIDATION_ERROR', message: `Input 1:image: asset ${image.id} was deleted before the run started` });
    expect(t.sentTimes(run.id)).to.equal(0);
    expect(t.a.dispatcher.inFlight()).to.equal(0);
    await t.a.dispatcher.stop();
  });

  it("reads a run's input assets while its claim reserves it, so its prompt does not wait for that read after the claim", async () => {
    const t = await setup();
    const image = await t.uploadImage();
    const run = await t.create({ '1:image': image.id, '2:blur_radius': 9 });
    let markRead: () => void = () => undefined;
    const read = new Promise<void>((resolve) => (markRead = resolve));
    const get = t.w.ports.assets.get.bind(t.w.ports.assets);
    t.w.ports.assets.get = async (id, options) => {
      if (id === image.id) markRead();
      return get(id, options);
    };
    // The claim returns once the asset is being read, or after 1 s when the read waits for the claim.
    const claimMany = t.w.ports.runs.claimMany.bind(t.w.ports.runs);
    let readDuringClaim: boolean | null = null;
    t.w.ports.runs.claimMany = async (request, max) => {
      const claimed = await claimMany(request, max);
      if (claimed.some((r) => r.id === run.id)) {
        readDuringClaim = await Promise.race([read.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000))]);
      }
      return claimed;
    };
    await t.a.dispatcher.start();
    await t.a.dispatcher.idle();
    expect(readDuringClaim, 'the asset was read only after the claim').to.equal(true);
    expect(t.sentTimes(run.id)).to.equal(1);
    expect(t.backend.submitted.find((j) => j.runId === run.id)?.media['1:image']?.assetId).to.equal(image.id);
    await t.a.dispatcher.stop();
  });

  it('reads the inputs of no more runs during a claim than the claim may take, whatever runs placement picks and passes by', async () => {
    const t = await setup();
    const image = await t.uploadImage();
    const runs: Run[] = [];
    for (let i = 0; i < 5; i += 1) runs.push(await t.create({ '1:image': image.id, '2:blur_radius': i + 1 }));
    let claiming = false;
    /** Input reads started during each claim. */
    const readsPerClaim: number[] = [];
    const get = t.w.ports.assets.get.bind(t.w.ports.assets);
    t.w.ports.assets.get = async (id, options) => {
      if (claiming) readsPerClaim.push((readsPerClaim.pop() ?? 0) + 1);
      return get(id, options);
    };
    // Placement is first shown every waiting run, as a claim does when the backends it picks are
    // held by another instance's claim (each such run is passed by); then the claim proper.
    const claimMany = t.w.ports.runs.claimMany.bind(t.w.ports.runs);
    t.w.ports.runs.claimMany = async (request, max) => {
      claiming = true;
      readsPerClaim.push(0);
      for (const run of runs) request.place({ ...run, workflow: {} }, [{ id: IN_MEMORY_BACKEND, room: 1, lastAppVersionId: null, lastPlacedAtMs: null }]);
      const claimed = await claimMany(request, max);
      await new Promise((resolve) => setImmediate(resolve));
      claiming = false;
      return claimed;
    };
    await t.a.dispatcher.start();
    await t.a.dispatcher.idle();
    expect(readsPerClaim.length, 'claims made').to.be.above(0);
    expect(Math.max(...readsPerClaim), 'reads started during one claim (depth 1: it takes one run)').to.equal(1);
    expect(t.backend.submitted, 'the first run is sent with its input').to.have.length(1);
    expect(t.backend.submitted[0]?.media['1:image']?.assetId).to.equal(image.id);
    await t.a.dispatcher.stop();
  });

  it("stores a finished run's outputs at the next sweep when reading them failed the first time", async () => {
    const t = await setup();
    const original = t.backend.fetchOutput.bind(t.backend);
    let failures = 1;
    t.backend.fetchOutput = async (backendId, ref) => {
      if (failures-- > 0) throw new CoreError('SERVICE_UNAVAILABLE', 'the backend went away for a moment');
      return original(backendId, ref);
    };
    const run = await t.finishedRun();
    await t.transition((c) => c.event === 'store-failed' && c.to === 'sent', 'the first attempt to fail');
    expect((await t.get(run.id)).status, 'still running after the failed attempt').to.equal('running');
    await t.a.sweep();
    const done = await t.get(run.id);
    expect(done.status).to.equal('succeeded');
    expect(done.outputs).to.have.length(1);
    expect((await t.w.api.accountOverview.execute(t.p)).quota.used, 'charged once').to.equal(2);
    await t.a.dispatcher.stop();
  });

  it('stores each output once when a retry finds the first already stored, and every stored output can be read', async () => {
    const t = await setup();
    const original = t.backend.fetchOutput.bind(t.backend);
    let failures = 1;
    t.backend.fetchOutput = async (backendId, ref) => {
      if (ref.filename === 'second.png' && failures-- > 0) throw new CoreError('SERVICE_UNAVAILABLE', 'the backend went away for a moment');
      return original(backendId, ref);
    };
    const second = { ...OUT, filename: 'second.png', bytes: Buffer.concat([TINY_PNG, Buffer.from('second')]) };
    const run = await t.finishedRun([OUT, second]);
    await t.transition((c) => c.event === 'store-failed', 'the first attempt to fail on the second output');
    await t.a.sweep();
    const done = await t.get(run.id);
    expect(done.status).to.equal('succeeded');
    expect(done.outputs.map((o) => o.filename)).to.deep.equal(['out.png', 'second.png']);
    const stored = await t.w.ports.assets.listByAccount(t.p.account.id, { limit: 10, origin: 'output', now: t.w.clock.now() });
    expect(stored.assets.map((a) => a.id).sort(), 'one record per output, none twice').to.deep.equal(done.outputs.map((o) => o.assetId).sort());
    for (const output of stored.assets) expect(await t.w.ports.blobs.size(output.sha256), `the bytes of ${output.filename}`).to.equal(output.size);
    await t.a.dispatcher.stop();
  });

  it("keeps an output whose record was written but whose answer was lost, with its bytes stored", async () => {
    const t = await setup();
    const create = t.w.ports.assets.create.bind(t.w.ports.assets);
    let lost = 1;
    t.w.ports.assets.create = async (asset) => {
      await create(asset);
      if (asset.origin === 'output' && lost-- > 0) throw new CoreError('SERVICE_UNAVAILABLE', 'the connection dropped after the insert');
    };
    const own = { ...OUT, bytes: Buffer.concat([TINY_PNG, Buffer.from('only this run made these')]) };
    const run = await t.finishedRun([own]);
    await t.a.sweep();
    const done = await t.get(run.id);
    expect(done.status).to.equal('succeeded');
    const [output] = done.outputs;
    const asset = await t.w.ports.assets.get(output?.assetId ?? '');
    expect(asset?.size).to.equal(own.bytes.length);
    expect(await t.w.ports.blobs.size(asset?.sha256 ?? ''), 'the bytes behind the record').to.equal(own.bytes.length);
    await t.a.dispatcher.stop();
  });

  it('fails a run OUTPUTS_UNREADABLE, charged its execution time, once its outputs stayed unreadable five times', async () => {
    const t = await setup();
    let reads = 0;
    t.backend.fetchOutput = async () => {
      reads += 1;
      throw new CoreError('SERVICE_UNAVAILABLE', 'output out.png is gone');
    };
    const run = await t.finishedRun();
    for (let sweep = 1; sweep <= 3; sweep += 1) await t.a.sweep();
    expect(reads, 'the first attempt and three sweeps').to.equal(4);
    expect((await t.get(run.id)).status).to.equal('running');
    await t.a.sweep();
    expect(reads).to.equal(5);
    const failed = await t.get(run.id);
    expect(failed.status).to.equal('failed');
    expect(failed.error?.code).to.equal('OUTPUTS_UNREADABLE');
    expect(failed.error?.message).to.include('output out.png is gone');
    expect(failed.metrics.gpuSeconds, 'the backend executed it').to.equal(2);
    expect((await t.w.api.accountOverview.execute(t.p)).quota.used).to.equal(2);
    expect(t.a.dispatcher.inFlight()).to.equal(0);
    await t.a.dispatcher.stop();
  });

  it('goes on with the other runs when one cannot be settled: a later run still meets its time limit', async () => {
    const t = await setup({ depth: 2, maxRunSeconds: 60 });
    t.backend.fetchOutput = async () => {
      throw new CoreError('SERVICE_UNAVAILABLE', 'output gone');
    };
    await t.a.dispatcher.start();
    const stuck = await t.create();
    const slow = await t.create();
    await t.a.dispatcher.idle();
    const start = t.w.clock.nowMs();
    t.backend.start(stuck.id, start);
    t.backend.start(slow.id, start);
    t.backend.succeed(stuck.id, [OUT], { startedAtMs: start, finishedAtMs: start + 1 });
    await t.a.dispatcher.idle();
    await t.transition((c) => c.runId === stuck.id && c.event === 'store-failed', 'the outputs of the first run to fail');
    await t.a.tick(61_000);
    const failed = await t.get(slow.id);
    expect(failed.status).to.equal('failed');
    expect(failed.error?.code).to.equal('RUN_TIMEOUT');
    await t.a.dispatcher.stop();
  });

  it('fails a run the backend refuses with VALIDATION_ERROR, and a node error with EXECUTION_ERROR', async () => {
    const t = await setup();
    await t.a.dispatcher.start();
    t.backend.rejectNext = { code: 'VALIDATION_ERROR', message: 'Prompt outputs failed validation', nodeId: null, nodeType: null, details: { '1': {} } };
    const refused = await t.create();
    await t.a.dispatcher.idle();
    const failed = await t.get(refused.id);
    expect(failed.error?.code).to.equal('VALIDATION_ERROR');
    expect(failed.metrics.gpuSeconds).to.equal(null);
    const run = await t.create();
    await t.a.dispatcher.idle();
    t.backend.start(run.id, t.w.clock.nowMs());
    t.backend.fail(run.id, { code: 'EXECUTION_ERROR', message: 'boom', nodeId: '2', nodeType: 'ImageBlur' }, { startedAtMs: 0, finishedAtMs: 400 });
    await t.a.dispatcher.idle();
    const errored = await t.get(run.id);
    expect(errored.error).to.deep.include({ code: 'EXECUTION_ERROR', nodeId: '2', nodeType: 'ImageBlur' });
    expect(errored.metrics.gpuSeconds).to.equal(0.4);
    await t.a.dispatcher.stop();
  });

  it('cancels a run after its prompt was sent: one still queued on the backend, and one running there', async () => {
    const t = await setup();
    await t.a.dispatcher.start();
    const queued = await t.create();
    await t.a.dispatcher.idle();
    expect((await t.w.api.cancelRun.execute(t.p, queued.id)).status).to.equal('canceling');
    await t.a.dispatcher.idle();
    expect((await t.get(queued.id)).status).to.equal('canceled');
    expect((await t.get(queued.id)).metrics.gpuSeconds).to.equal(null);
    expect(t.backend.job(queued.id), 'taken off the backend queue').to.equal(undefined);
    const running = await t.create();
    await t.a.dispatcher.idle();
    t.backend.start(running.id, t.w.clock.nowMs());
    await t.a.dispatcher.idle();
    expect((await t.w.api.cancelRun.execute(t.p, running.id)).status).to.equal('canceling');
    await t.a.dispatcher.idle();
    expect((await t.get(running.id)).status).to.equal('canceled');
    await t.a.dispatcher.stop();
  });

  it('never calls a run canceled while a backend holds it: one claimed and sent between the cancel\'s read and its write is canceling', async () => {
    const t = await setup();
    const run = await t.create();
    // The cancel reads the run waiting on no backend; the dispatcher claims it and sends its prompt before the cancel writes.
    let reads = 0;
    const runs = new Proxy(t.w.ports.runs, {
      get: (target, name) =>
        name === 'get'
          ? async (id: string) => {
              const read = await target.get(id);
              reads += 1;
              if (reads === 1) {
                await t.a.dispatcher.start();
                await t.a.dispatcher.idle();
              }
              return read;
            }
          : (Reflect.get(target, name) as (...args: unknown[]) => unknown).bind(target),
    }) as RunRepository;
    const answer = await new CancelRun(runs, t.w.ports.workSignal, t.w.clock, t.w.ids).execute(t.p, run.id);
    expect(t.backend.submitted.map((j) => j.runId), 'the prompt was sent').to.deep.equal([run.id]);
    expect(answer.status, 'its backend still holds it').to.equal('canceling');
    await t.a.dispatcher.idle();
    expect((await t.get(run.id)).status).to.equal('canceled');
    expect(t.backend.job(run.id), 'taken off the backend').to.equal(undefined);
    await t.a.dispatcher.stop();
  });

  it('stores the outcome once when the run finishes while its cancel is in flight', async () => {
    const t = await setup();
    await t.a.dispatcher.start();
    const run = await t.create();
    await t.a.dispatcher.idle();
    const start = t.w.clock.nowMs();
    t.backend.start(run.id, start);
    await t.a.dispatcher.idle();
    // The backend finishes the run as the cancel reaches it: nothing is left to interrupt.
    t.backend.cancel = async (_backendId, runId) => t.backend.succeed(runId, [OUT], { startedAtMs: start, finishedAtMs: start + 700 });
    await t.w.api.cancelRun.execute(t.p, run.id);
    await t.a.dispatcher.idle();
    const done = await t.get(run.id);
    expect(done.status, 'what the backend did wins').to.equal('succeeded');
    expect(done.outputs).to.have.length(1);
    expect(done.metrics.gpuSeconds).to.equal(0.7);
    const finishing = t.transitions.filter((c) => c.runId === run.id && c.to === 'finishing');
    expect(finishing.map((c) => c.event), 'one way into finishing; the cancel answer came after').to.deep.equal(['backend']);
    await t.a.dispatcher.stop();
  });

  it('settles a run canceled while its prompt was being sent as canceled at once, and never sends it', async () => {
    const t = await setup();
    t.onSubmit(async (job) => {
      // The run already names its backend, so the cancel only asks for it (canceling).
      expect((await t.w.api.cancelRun.execute(t.p, job.runId)).status).to.equal('canceling');
    });
    const run = await t.create();
    // Within the lease: the run does not wait for another dispatcher's sweep.
    await t.a.dispatcher.start();
    await t.a.dispatcher.idle();
    const canceled = await t.get(run.id);
    expect(canceled.status).to.equal('canceled');
    expect(t.backend.submitted).to.have.length(0);
    expect(canceled.leaseOwner).to.equal(null);
    expect(canceled.metrics.gpuSeconds).to.equal(null);
    await t.a.dispatcher.stop();
  });

  it('applies a cancel that comes while the prompt is on its way once the backend has it', async () => {
    const t = await setup();
    t.onSubmit(async (job) => {
      // The claim is verified, then the cancel comes before the prompt reaches the backend.
      expect(await job.stillClaimed?.()).to.equal(true);
      expect((await t.w.api.cancelRun.execute(t.p, job.runId)).status).to.equal('canceling');
      await t.transition((c) => c.runId === job.runId && c.from === 'submitting' && c.event === 'cancel-requested', 'the cancel to be noted');
      const { stillClaimed: _verified, ...rest } = job;
      return rest;
    });
    const run = await t.create();
    await t.a.dispatcher.start();
    await t.a.dispatcher.idle();
    expect((await t.get(run.id)).status).to.equal('canceled');
    expect(t.backend.submitted.map((j) => j.runId), 'the prompt was sent').to.deep.equal([run.id]);
    expect(t.backend.job(run.id), 'and taken off the backend again').to.equal(undefined);
    await t.a.dispatcher.stop();
  });

  it('never sends a run twice when its own sweep runs while the prompt is being sent', async () => {
    const t = await setup();
    const restore = t.onSubmit(async () => {
      // The backend does not know the run yet: a reconciliation now must not requeue it.
      await t.a.timers.advance(SWEEP_MS);
    });
    const run = await t.create();
    await t.a.dispatcher.start();
    await t.a.dispatcher.idle();
    restore();
    t.backend.start(run.id, t.w.clock.nowMs());
    t.backend.succeed(run.id, [], { startedAtMs: 0, finishedAtMs: 10 });
    await t.a.dispatcher.idle();
    expect((await t.get(run.id)).status).to.equal('succeeded');
    expect(t.sentTimes(run.id)).to.equal(1);
    await t.a.dispatcher.stop();
  });

  it('sends a freshly claimed run without writing it first, and verifies a claim a third of its lease old', async () => {
    const t = await setup();
    const runs = t.w.ports.runs;
    const update = runs.update.bind(runs);
    const verified: string[] = [];
    runs.update = async (id, patch, guard, audit) => {
      if (patch.leaseExpiresAt && guard?.leaseOwner) verified.push(id);
      return update(id, patch, guard, audit);
    };
    await t.a.dispatcher.start();
    const fresh = await t.create();
    await t.a.dispatcher.idle();
    expect(verified, 'a lease taken moments ago needs no check').to.deep.equal([]);
    t.backend.start(fresh.id, t.w.clock.nowMs());
    t.backend.succeed(fresh.id, [], { startedAtMs: 0, finishedAtMs: 10 });
    await t.a.dispatcher.idle();
    // The next prompt takes a while to prepare: its lease may no longer be this dispatcher's alone.
    t.onSubmit(async () => {
      t.w.clock.advance(LEASE_MS / 3 + 1);
    });
    const slow = await t.create();
    await t.a.dispatcher.idle();
    expect(verified).to.deep.equal([slow.id]);
    expect(t.backend.submitted.map((j) => j.runId)).to.deep.equal([fresh.id, slow.id]);
    await t.a.dispatcher.stop();
  });

  it('does not send a prompt once another dispatcher has taken the run over', async () => {
    const t = await setup();
    t.onSubmit(async (job) => {
      // This dispatcher stalled past its lease; another took the run over meanwhile.
      t.w.clock.advance(LEASE_MS + 1);
      await t.w.ports.runs.update(job.runId, { leaseOwner: 'instance-b' });
    });
    const run = await t.create();
    await t.a.dispatcher.start();
    await t.a.dispatcher.idle();
    expect(t.logs.some((l) => l.startsWith('claim lost')), 'the dispatcher gave the run up').to.equal(true);
    expect(t.backend.submitted).to.have.length(0);
    expect((await t.get(run.id)).leaseOwner).to.equal('instance-b');
    expect(t.a.dispatcher.inFlight()).to.equal(0);
    await t.a.dispatcher.stop();
  });

  it('dispatches a run again when its backend forgets it before it starts, and fails it BACKEND_LOST after (no failover)', async () => {
    const t = await setup({ maxAttempts: 1 });
    await t.a.dispatcher.start();
    const run = await t.create();
    await t.a.dispatcher.idle();
    t.backend.forget(run.id);
    await t.a.dispatcher.idle();
    expect(t.sentTimes(run.id), 'sent again').to.equal(2);
    t.backend.start(run.id, t.w.clock.nowMs());
    await t.a.dispatcher.idle();
    t.backend.forget(run.id);
    await t.a.dispatcher.idle();
    const lost = await t.get(run.id);
    expect(lost.status).to.equal('failed');
    expect(lost.error?.code).to.equal('BACKEND_LOST');
    expect(lost.metrics.gpuSeconds).to.equal(null);
    await t.a.dispatcher.stop();
  });

  it('ignores the late events of an earlier following once the run is dispatched anew', async () => {
    const t = await setup();
    const listeners: ((event: ExecutionEvent) => void)[] = [];
    const follow = t.backend.follow.bind(t.backend);
    t.backend.follow = (backendId, runId, listener) => {
      listeners.push(listener);
      return follow(backendId, runId, listener);
    };
    await t.a.dispatcher.start();
    const run = await t.create();
    await t.a.dispatcher.idle();
    t.backend.forget(run.id); // the backend forgets it before it starts: queued and sent again
    await t.a.dispatcher.idle();
    expect(listeners).to.have.length(2);
    // The first following's news arrives late: a loss, a start, an outcome.
    listeners[0]?.({ type: 'lost' });
    listeners[0]?.({ type: 'started', atMs: t.w.clock.nowMs() });
    listeners[0]?.({ type: 'finished', result: { state: 'failed', error: { code: 'EXECUTION_ERROR', message: 'old', nodeId: null, nodeType: null }, timing: null } });
    await t.a.dispatcher.idle();
    expect(t.sentTimes(run.id), 'sent twice in all, never a third time').to.equal(2);
    const current = await t.get(run.id);
    expect(current.status).to.equal('queued');
    expect(current.backendId).to.equal(IN_MEMORY_BACKEND);
    expect(t.a.dispatcher.inFlight()).to.equal(1);
    await t.a.dispatcher.stop();
  });

  it('frees a run it dropped after an unexpected error when its lease lapses, and dispatches it again', async () => {
    const t = await setup();
    const restore = t.onSubmit(async () => {
      restore();
      throw new Error('the input could not be read');
    });
    const run = await t.create();
    await t.a.dispatcher.start();
    await t.a.dispatcher.idle();
    expect(t.a.dispatcher.inFlight(), 'dropped').to.equal(0);
    const lease = (await t.get(run.id)).leaseExpiresAt?.getTime();
    await t.a.tick(LEASE_MS / 2);
    expect((await t.get(run.id)).leaseExpiresAt?.getTime(), 'a dropped run keeps no lease').to.equal(lease);
    expect(t.backend.submitted).to.have.length(0);
    await t.a.tick(LEASE_MS / 2 + SWEEP_MS);
    expect(t.sentTimes(run.id)).to.equal(1);
    expect((await t.get(run.id)).status).to.equal('queued');
    await t.a.dispatcher.stop();
  });

  it('renews the leases of the runs it follows on its own timer', async () => {
    const t = await setup();
    await t.a.dispatcher.start();
    const run = await t.create();
    await t.a.dispatcher.idle();
    const first = (await t.get(run.id)).leaseExpiresAt?.getTime() ?? 0;
    await t.a.tick(LEASE_MS * 2);
    expect((await t.get(run.id)).leaseExpiresAt?.getTime()).to.be.greaterThan(first + LEASE_MS);
    expect((await t.get(run.id)).leaseOwner).to.equal('instance-a');
    await t.a.dispatcher.stop();
    expect((await t.get(run.id)).leaseOwner, 'released at stop').to.equal(null);
  });

  it('requeues a run when the backend is unreachable at submit', async () => {
    const t = await setup();
    const run = await t.create();
    const restore = t.onSubmit(async () => {
      restore();
      throw new CoreError('SERVICE_UNAVAILABLE', 'connection refused');
    });
    await t.a.dispatcher.start();
    await t.a.dispatcher.idle();
    expect(t.logs).to.include('backend unreachable at submit; run queued again');
    expect(t.sentTimes(run.id), 'dispatched again once queued').to.equal(1);
    expect((await t.get(run.id)).status).to.equal('queued');
    await t.a.dispatcher.stop();
  });

  it('fails over a run its backend forgot after it started: dispatched again, succeeded with attempts 2, charged for the finishing attempt only', async () => {
    const t = await setup();
    const run = await t.startedRun();
    expect((await t.get(run.id)).startedAt).to.not.equal(null);
    const started = (await t.get(run.id)).startedAt;
    t.backend.forget(run.id);
    await t.a.dispatcher.idle();
    expect(t.sentTimes(run.id), 'dispatched to a backend again').to.equal(2);
    const again = await t.get(run.id);
    expect([again.status, again.attempts], 'still running: a status never moves backwards').to.deep.equal(['running', 2]);
    t.backend.start(run.id, t.w.clock.nowMs());
    t.backend.succeed(run.id, [], { startedAtMs: 1000, finishedAtMs: 4000 });
    await t.a.dispatcher.idle();
    const done = await t.get(run.id);
    expect([done.status, done.attempts, done.metrics.gpuSeconds]).to.deep.equal(['succeeded', 2, 3]);
    expect(done.startedAt, 'started once, when the first attempt did').to.deep.equal(started);
    expect(await t.w.ports.gpuLedger.usedSeconds(done.accountId, new Date(0), new Date(8.64e15)), 'the lost attempt costs nothing').to.equal(3);
    await t.a.dispatcher.stop();
  });

  it('fails a run BACKEND_LOST once every one of its attempts was lost', async () => {
    const t = await setup({ maxAttempts: 2 });
    const run = await t.startedRun();
    t.backend.forget(run.id);
    await t.a.dispatcher.idle();
    t.backend.start(run.id, t.w.clock.nowMs());
    await t.a.dispatcher.idle();
    t.backend.forget(run.id);
    await t.a.dispatcher.idle();
    const lost = await t.get(run.id);
    expect([lost.status, lost.error?.code, lost.attempts, lost.metrics.gpuSeconds]).to.deep.equal(['failed', 'BACKEND_LOST', 2, null]);
    expect(t.sentTimes(run.id)).to.equal(2);
    await t.a.dispatcher.stop();
  });

  it('cancels a run failing over at once: a cancel wins over a failover', async () => {
    const t = await setup();
    const run = await t.startedRun();
    // No backend takes the run again while it fails over.
    t.backend.available = false;
    t.backend.forget(run.id);
    await t.a.dispatcher.idle();
    expect(await t.get(run.id)).to.deep.include({ status: 'running', backendId: null });
    const canceled = await t.w.api.cancelRun.execute(t.p, run.id);
    expect(canceled.status).to.equal('canceled');
    t.backend.available = true;
    await t.a.sweep();
    await t.a.dispatcher.idle();
    expect(t.sentTimes(run.id), 'never dispatched again').to.equal(1);
    expect((await t.get(run.id)).status).to.equal('canceled');
    await t.a.dispatcher.stop();
  });

  it('fails a running run BACKEND_LOST once its backend stays unreachable past the grace period (no failover)', async () => {
    const t = await setup({ backendGraceMs: 5000, maxAttempts: 1 });
    await t.a.dispatcher.start();
    const run = await t.create();
    await t.a.dispatcher.idle();
    t.backend.start(run.id, t.w.clock.nowMs());
    await t.a.dispatcher.idle();
    t.backend.available = false;
    await t.a.sweep();
    await t.a.tick(3000);
    expect((await t.get(run.id)).status, 'within the grace period').to.equal('running');
    t.backend.available = true;
    await t.a.sweep();
    t.backend.available = false;
    await t.a.tick(4000);
    expect((await t.get(run.id)).status, 'the grace period starts again once it answered').to.equal('running');
    await t.a.tick(2000);
    const lost = await t.get(run.id);
    expect(lost.status).to.equal('failed');
    expect(lost.error?.code).to.equal('BACKEND_LOST');
    expect(lost.error?.message).to.include('unreachable');
    await t.a.dispatcher.stop();
  });

  it('sends a cancel again at the next sweep when the backend failed the first, and the run ends canceled', async () => {
    const { t, run, cancelCalls } = await runningWithFailingCancel({});
    expect((await t.w.api.cancelRun.execute(t.p, run.id)).status).to.equal('canceling');
    await t.a.dispatcher.idle();
    expect((await t.get(run.id)).status, 'the cancel failed').to.equal('canceling');
    await t.a.tick(SWEEP_MS);
    expect(cancelCalls()).to.equal(2);
    expect((await t.get(run.id)).status).to.equal('canceled');
    await t.a.dispatcher.stop();
  });

  it('interrupts a run past its time limit again at the next sweep when the first interrupt failed, and fails it RUN_TIMEOUT', async () => {
    const { t, run, cancelCalls } = await runningWithFailingCancel({ maxRunSeconds: 10 });
    await t.a.tick(10_000 + SWEEP_MS);
    expect(cancelCalls(), 'the first interrupt').to.equal(1);
    expect((await t.get(run.id)).status).to.equal('running');
    await t.a.tick(SWEEP_MS);
    expect(cancelCalls()).to.equal(2);
    const failed = await t.get(run.id);
    expect(failed.status).to.equal('failed');
    expect(failed.error?.code).to.equal('RUN_TIMEOUT');
    await t.a.dispatcher.stop();
  });

  it('fails a run past its time limit with RUN_TIMEOUT and expires a run that never started', async () => {
    const t = await setup({ maxRunSeconds: 10, maxQueueSeconds: 60 });
    const stale = await t.create();
    t.backend.available = false;
    await t.a.dispatcher.start();
    await t.a.tick(61_000);
    expect((await t.get(stale.id)).status).to.equal('expired');
    t.backend.available = true;
    const run = await t.create();
    t.a.dispatcher.wake();
    await t.a.dispatcher.idle();
    t.backend.start(run.id, t.w.clock.nowMs());
    await t.a.dispatcher.idle();
    await t.a.tick(10_000);
    expect((await t.get(run.id)).status, 'at its limit').to.equal('running');
    await t.a.tick(SWEEP_MS);
    const failed = await t.get(run.id);
    expect(failed.status).to.equal('failed');
    expect(failed.error?.code).to.equal('RUN_TIMEOUT');
    await t.a.dispatcher.stop();
  });

  it('never starts a run past its queue time, even before a sweep expires it', async () => {
    const t = await setup({ maxQueueSeconds: 4 });
    await t.a.dispatcher.start();
    const busy = await t.create();
    await t.a.dispatcher.idle();
    const late = await t.create();
    // The backend frees up 4.2 s later, before the sweep (the clock moves without firing it).
    t.w.clock.advance(4200);
    const fresh = await t.create();
    const start = t.w.clock.nowMs();
    t.backend.start(busy.id, start);
    t.backend.succeed(busy.id, [], { startedAtMs: start, finishedAtMs: start + 10 });
    await t.a.dispatcher.idle();
    expect((await t.get(busy.id)).status).to.equal('succeeded');
    // The fresh run, behind the late one in the queue, is sent: the late one was passed by.
    expect(t.sentTimes(fresh.id)).to.equal(1);
    expect(t.backend.job(late.id), 'the run past its queue time never reached the backend').to.equal(undefined);
    expect((await t.get(late.id)).status).to.equal('queued');
    await t.a.dispatcher.stop();
  });

  it('takes over the runs of a dispatcher that died, and settles those that finished meanwhile', async () => {
    const t = await setup();
    const view = processView(t.backend);
    const doomed = t.make('instance-doomed', view.executor);
    await doomed.dispatcher.start();
    const a = await t.create();
    const b = await t.create();
    await doomed.dispatcher.idle();
    expect(t.sentTimes(a.id)).to.equal(1);
    t.backend.start(a.id, t.w.clock.nowMs());
    await doomed.dispatcher.idle();
    expect((await t.get(a.id)).status).to.equal('running');
    view.kill(); // without releasing its leases
    t.backend.succeed(a.id, [], { startedAtMs: 0, finishedAtMs: 1000 });
    const other = t.make('instance-b');
    await other.dispatcher.start();
    await other.tick(LEASE_MS + SWEEP_MS);
    const done = await t.get(a.id);
    expect(done.status).to.equal('succeeded');
    expect(done.metrics.gpuSeconds).to.equal(1);
    expect(t.sentTimes(a.id), 'never sent again').to.equal(1);
    expect(t.logs).to.include('taking over a run');
    expect(t.transitions.filter((c) => c.runId === a.id && c.to === 'finishing'), 'settled by the new dispatcher alone').to.have.length(1);
    // The queued run the dead one held is dispatched by the new one once the backend is free.
    await other.dispatcher.idle();
    expect(t.sentTimes(b.id)).to.equal(1);
    await other.dispatcher.stop();
    await doomed.dispatcher.stop();
  });

  it('applies a cancel whose notification never came at the next sweep', async () => {
    const t = await setup({ lostSignals: 'run-cancel' });
    await t.a.dispatcher.start();
    const run = await t.create();
    await t.a.dispatcher.idle();
    t.backend.start(run.id, t.w.clock.nowMs());
    await t.a.dispatcher.idle();
    expect((await t.w.api.cancelRun.execute(t.p, run.id)).status).to.equal('canceling');
    await t.a.dispatcher.idle();
    expect((await t.get(run.id)).status, 'nothing told the dispatcher').to.equal('canceling');
    await t.a.sweep();
    expect((await t.get(run.id)).status).to.equal('canceled');
    await t.a.dispatcher.stop();
  });

  it('names the running node in the progress it writes, also a node without steps started right after the end of the one before', async () => {
    const t = await setup();
    await t.a.dispatcher.start();
    const run = await t.create();
    await t.a.dispatcher.idle();
    t.backend.start(run.id, t.w.clock.nowMs());
    t.backend.progress(run.id, 0, 8, '1');
    await t.a.dispatcher.idle();
    // As ComfyUI tells it: node 1 ends (the end written, the throttle having passed), node 2 starts at once.
    t.w.clock.advance(300);
    t.backend.progress(run.id, 1, 8, null);
    t.backend.progress(run.id, 1, 8, '2');
    await t.a.dispatcher.idle();
    expect((await t.get(run.id)).progress).to.deep.equal({ value: 1, max: 8, nodeId: '2' });
    await t.a.dispatcher.stop();
  });

  it('reads the run for none of the events it records as it goes: start, node events and throttled progress ticks', async () => {
    const t = await setup();
    await t.a.dispatcher.start();
    const run = await t.create();
    await t.a.dispatcher.idle();
    const runs = t.w.ports.runs;
    const get = runs.get.bind(runs);
    const update = runs.update.bind(runs);
    let reads = 0;
    let progressWrites = 0;
    runs.get = async (id) => {
      if (id === run.id) reads += 1;
      return get(id);
    };
    runs.update = async (id, patch, expected) => {
      if (id === run.id && patch.progress) progressWrites += 1;
      return update(id, patch, expected);
    };
    try {
      t.backend.start(run.id, t.w.clock.nowMs());
      for (const node of ['1', '2', '3']) t.backend.executing(run.id, node);
      t.backend.progress(run.id, 1, 4, '2');
      t.backend.progress(run.id, 2, 4, '2');
      t.backend.progress(run.id, 4, 4, '2');
      await t.a.dispatcher.idle();
    } finally {
      runs.get = get;
      runs.update = update;
    }
    const running = await t.get(run.id);
    expect(running.status).to.equal('running');
    expect(running.progress?.value).to.equal(4);
    // The first tick and the node's completion are written (the status their condition), the tick between skipped.
    expect(progressWrites).to.equal(2);
    expect(reads).to.equal(0);
    t.backend.succeed(run.id, [], { startedAtMs: t.w.clock.nowMs(), finishedAtMs: t.w.clock.nowMs() + 10 });
    await t.a.dispatcher.idle();
    expect((await t.get(run.id)).status).to.equal('succeeded');
    await t.a.dispatcher.stop();
  });
});

describe('Dispatcher: run states', () => {
  it('reports each change of a followed run, from submitting to settled', async () => {
    const t = await setup();
    await t.a.dispatcher.start();
    const run = await t.create();
    await t.a.dispatcher.idle();
    t.backend.start(run.id, t.w.clock.nowMs());
    t.backend.succeed(run.id, [], { startedAtMs: 0, finishedAtMs: 5 });
    await t.a.dispatcher.idle();
    const path = t.transitions.filter((c) => c.runId === run.id && c.from !== c.to).map((c) => `${c.from} -${c.event}-> ${c.to}`);
    expect(path).to.deep.equal(['submitting -accepted-> sent', 'sent -backend-> finishing', 'finishing -stored-> settled']);
    await t.a.dispatcher.stop();
  });
});
