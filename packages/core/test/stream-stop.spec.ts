/**
 * An instance that stops frees the slots of its streams before its storage closes, also the slots
 * of streams whose clients went away just before, and lets the reads of their runs under way
 * finish: work cut off by the closing storage ends in an error in the log, and a slot not
 * released counts against its account until its lease lapses.
 */
import { expect } from 'chai';
import { RunStreams, type RunRepository, type RunStreamSink, type StreamSlots } from '@runload/core';
import { ManualTimers } from '@runload/core/testing';
import { makeWorld } from './fixture.js';

const quietSink: RunStreamSink = { record: () => undefined, heartbeat: () => undefined, end: () => undefined };

/** The slots, with every release held until `open()`. */
function gatedSlots(inner: StreamSlots) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const released: string[] = [];
  const slots: StreamSlots = {
    acquire: (...args) => inner.acquire(...args),
    renew: (...args) => inner.renew(...args),
    release: async (holder) => {
      await gate;
      await inner.release(holder);
      released.push(holder);
    },
  };
  return { slots, released, open };
}

/** The runs, with every read by id held until `open()` once `hold()` was called. */
function gatedRuns(inner: RunRepository) {
  let held = false;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const runs = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name !== 'get' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        if (held) await gate;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { runs, hold: () => (held = true), open };
}

/** Whether `promise` has settled once the promises ready now have run (a turn of the event loop, no time). */
async function settledNow(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  const first = await Promise.race([promise.then(() => true, () => true), new Promise<typeof pending>((resolve) => setImmediate(() => resolve(pending)))]);
  return first !== pending;
}

describe('a stopping instance frees its streams’ slots', () => {
  async function setup() {
    const w = await makeWorld();
    const p = await w.principal('ultra');
    const gated = gatedSlots(w.ports.streamSlots);
    const streams = new RunStreams(w.ports.runs, gated.slots, w.ports.workSignal, w.clock, w.ids, { timers: new ManualTimers(w.clock) });
    const { run } = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
    return { w, p, streams, run, gated };
  }

  it('waits for the release of a stream whose client went away just before the stop', async () => {
    const { p, streams, run, gated } = await setup();
    const close = await streams.open(p, run.id, quietSink);
    // The client goes away: its release is under way, held at the gate.
    const closed = close();
    const stopped = streams.closeAll();
    expect(await settledNow(stopped), 'the stop resolved before the release').to.equal(false);
    gated.open();
    await Promise.all([closed, stopped]);
    expect(gated.released).to.have.length(1);
  });

  it('frees the slots of the streams still open, and the account can open as many again', async () => {
    const { w, p, streams, run, gated } = await setup();
    for (let i = 0; i < 20; i += 1) await streams.open(p, run.id, quietSink);
    gated.open();
    await streams.closeAll();
    expect(gated.released).to.have.length(20);
    expect(streams.openCount()).to.equal(0);
    // Every slot is free: another instance takes all 20 for this account.
    const again = new RunStreams(w.ports.runs, w.ports.streamSlots, w.ports.workSignal, w.clock, w.ids, { timers: new ManualTimers(w.clock) });
    for (let i = 0; i < 20; i += 1) await again.open(p, run.id, quietSink);
    expect(again.openCount()).to.equal(20);
    await again.closeAll();
  });

  it('waits for a read of the watched runs that is under way', async () => {
    const w = await makeWorld();
    const p = await w.principal('ultra');
    const gated = gatedRuns(w.ports.runs);
    const timers = new ManualTimers(w.clock);
    const streams = new RunStreams(gated.runs, w.ports.streamSlots, w.ports.workSignal, w.clock, w.ids, { timers, pollMs: 250 });
    const { run } = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
    await streams.open(p, run.id, quietSink);
    gated.hold();
    // The waiting run's place is read again at the next tick: that read is held at the gate.
    const ticked = timers.advance(250);
    const stopped = streams.closeAll();
    expect(await settledNow(stopped), 'the stop resolved while a read was under way').to.equal(false);
    gated.open();
    await Promise.all([ticked, stopped]);
  });
});
