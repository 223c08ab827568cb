/**
 * A run's event stream shows every status the run passes through, in order, however short the
 * run: each change is announced with the record it left, and the storage is read again only to
 * complete the picture (queue places, and changes whose announcement was lost).
 */
import { expect } from 'chai';
import { Dispatcher, runChangeOf, RunLifecycle, RunStreams, type Run, type RunStreamSink } from '@runload/core';
import { InMemoryExecutor, ManualTimers, waitFor } from '@runload/core/testing';
import { makeWorld } from './fixture.js';

/** A sink that keeps what it is told, as `status` or `status value/max`. */
function recordingSink() {
  const told: string[] = [];
  let ended = false;
  const sink: RunStreamSink = {
    record: (view, last) => {
      const p = view.run.progress;
      told.push(p && !last ? `${view.run.status} ${p.value}/${p.max}` : view.run.status);
    },
    heartbeat: () => undefined,
    end: () => (ended = true),
  };
  return { sink, told, ended: () => ended };
}

describe('the event stream shows every status a run passes through', () => {
  it('a run that starts and succeeds at once on its backend shows queued, running, succeeded', async () => {
    const backend = new InMemoryExecutor();
    const w = await makeWorld({ executor: backend });
    const p = await w.principal('ultra');
    const lifecycle = new RunLifecycle(w.ports.runs, w.ports.assets, w.ports.blobs, w.ports.workSignal, w.clock);
    const dispatcher = new Dispatcher(
      { runs: w.ports.runs, appVersions: w.ports.appVersions, assets: w.ports.assets, blobs: w.ports.blobs, executor: backend, lifecycle, signal: w.ports.workSignal, clock: w.clock, timers: new ManualTimers(w.clock) },
      { owner: 'a', leaseMs: 30_000, depth: 1, maxQueueSeconds: 3600, maxRunSeconds: 1800, sweepMs: 1000, backendGraceMs: 0, log: () => undefined },
    );
    await dispatcher.start();
    // The streams as the server makes them: the event loop's timers, the default periods.
    const streams = w.api.runStreams;
    const { sink, told } = recordingSink();
    try {
      const { run } = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
      await waitFor(() => backend.job(run.id), 'the run to be on its backend');
      const close = await streams.open(p, run.id, sink);
      // Started and finished in the same moment: no read of the storage could see it running.
      backend.start(run.id, w.clock.nowMs());
      backend.succeed(run.id, [], { startedAtMs: w.clock.nowMs(), finishedAtMs: w.clock.nowMs() + 20 });
      await waitFor(() => told.includes('succeeded'), 'the terminal record on the stream');
      expect(told).to.deep.equal(['queued', 'running', 'succeeded']);
      expect(streams.openCount()).to.equal(0);
      await close();
    } finally {
      await dispatcher.stop();
    }
  });

  describe('with timers the test moves itself', () => {
    async function setup() {
      const w = await makeWorld();
      const p = await w.principal('ultra');
      const timers = new ManualTimers(w.clock);
      const streams = new RunStreams(w.ports.runs, w.ports.streamSlots, w.ports.workSignal, w.clock, w.ids, { timers, pollMs: 250, rereadMs: 2000 });
      const { run } = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
      const lifecycle = new RunLifecycle(w.ports.runs, w.ports.assets, w.ports.blobs, w.ports.workSignal, w.clock);
      /** Changes the run in the storage without announcing it (as a lost announcement leaves it). */
      const quietly = async (patch: Parameters<typeof w.ports.runs.update>[1]) => (await w.ports.runs.update(run.id, patch)) as Run;
      return { w, p, timers, streams, run, lifecycle, quietly };
    }

    it('shows each change the lifecycle makes as it is made, progress included, and ends after the terminal record', async () => {
      const { w, p, streams, run, lifecycle } = await setup();
      const { sink, told } = recordingSink();
      await streams.open(p, run.id, sink);
      const started = (await lifecycle.started(run)) as Run;
      await lifecycle.progress(started, { value: 1, max: 4, nodeId: '3' });
      await lifecycle.progress(started, { value: 4, max: 4, nodeId: null });
      await lifecycle.failed(started, { code: 'EXECUTION_ERROR', message: 'boom', nodeId: '3', nodeType: 'KSampler' }, null);
      expect(told).to.deep.equal(['queued', 'running', 'running 1/4', 'running 4/4', 'failed']);
      expect(streams.openCount()).to.equal(0);
    });

    it('drops older news: a status never goes back, whatever order announcements come in', async () => {
      const { w, p, streams, run, quietly } = await setup();
      const { sink, told } = recordingSink();
      await streams.open(p, run.id, sink);
      const running = await quietly({ status: 'running', startedAt: w.clock.now() });
      const canceling = await quietly({ status: 'canceling', cancelRequested: true });
      w.ports.workSignal.announce(runChangeOf(canceling));
      w.ports.workSignal.announce(runChangeOf(running));
      w.ports.workSignal.announce(runChangeOf(canceling));
      expect(told).to.deep.equal(['queued', 'canceling']);
    });

    it('shows a cancel as the cancel makes it', async () => {
      const { p, w, streams, run } = await setup();
      const { sink, told } = recordingSink();
      await streams.open(p, run.id, sink);
      await w.api.cancelRun.execute(p, run.id);
      expect(told).to.deep.equal(['queued', 'canceled']);
    });

    it('reads every watched run again every rereadMs: a change whose announcement was lost is shown then', async () => {
      const { w, p, timers, streams, run, quietly } = await setup();
      const { sink, told } = recordingSink();
      await streams.open(p, run.id, sink);
      const running = await quietly({ status: 'running', startedAt: w.clock.now() });
      // A waiting run is read every tick (its place in the queue moves): it is seen running.
      await timers.advance(250);
      expect(told).to.deep.equal(['queued', 'running']);
      await quietly({ progress: { value: 2, max: 4, nodeId: '3' } });
      // A running run is not read every tick…
      await timers.advance(1500);
      expect(told).to.deep.equal(['queued', 'running']);
      // …only by the safety net.
      await timers.advance(500);
      expect(told).to.deep.equal(['queued', 'running', 'running 2/4']);
      w.ports.workSignal.announce(runChangeOf({ ...running, status: 'succeeded', finishedAt: w.clock.now() }));
      expect(told).to.deep.equal(['queued', 'running', 'running 2/4', 'succeeded']);
      expect(timers.pending(), 'no timer left once no stream is open').to.equal(0);
    });

    it('shows a change announced while the stream opens after the first record', async () => {
      const { w, p, run, quietly } = await setup();
      const { sink, told } = recordingSink();
      // The change comes after the stream read the run, before it sent its first record.
      const slowRuns = Object.create(w.ports.runs) as typeof w.ports.runs;
      let announced = false;
      const realQueuePosition = w.ports.runs.queuePosition.bind(w.ports.runs);
      slowRuns.queuePosition = async (r: Run) => {
        if (!announced) {
          announced = true;
          w.ports.workSignal.announce(runChangeOf(await quietly({ status: 'running', startedAt: w.clock.now(), backendId: 'b1' })));
        }
        return realQueuePosition(r);
      };
      const opening = new RunStreams(slowRuns, w.ports.streamSlots, w.ports.workSignal, w.clock, w.ids, { timers: new ManualTimers(w.clock) });
      await opening.open(p, run.id, sink);
      expect(told).to.deep.equal(['queued', 'running']);
    });
  });
});
