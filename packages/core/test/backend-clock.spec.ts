/**
 * A backend's timestamps are input: its clock may be hours off, or its history may carry ±1e308.
 * runload's own clock gives a run's times and time limit; the backend's may only measure a
 * duration, and only when that duration is sane.
 */
import { expect } from 'chai';
import { RunLifecycle, type Run } from '@runload/core';
import { makeWorld } from './fixture.js';

const HOUR = 3600_000;

async function setup() {
  const w = await makeWorld();
  const p = await w.principal('starter');
  const lifecycle = new RunLifecycle(w.ports.runs, w.ports.assets, w.ports.blobs, w.ports.workSignal, w.clock);
  const create = async () => (await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } })).run;
  const get = async (id: string): Promise<Run> => {
    const run = await w.ports.runs.get(id);
    if (!run) throw new Error(`no run ${id}`);
    return run;
  };
  return { w, p, lifecycle, create, get };
}

describe('Timestamps from a backend', () => {
  for (const [what, offsetMs] of [
    ['2 h behind', -2 * HOUR],
    ['2 h ahead', 2 * HOUR],
  ] as const) {
    it(`keep a run's times on runload's clock when the backend's clock is ${what}`, async () => {
      const t = await setup();
      const run = await t.create();
      t.w.clock.advance(500);
      const startMs = t.w.clock.nowMs();
      await t.lifecycle.started(await t.get(run.id));
      const running = await t.get(run.id);
      expect(running.startedAt?.getTime(), 'the start, by runload').to.equal(startMs);
      t.w.clock.advance(1700);
      await t.lifecycle.succeeded(running, [], { startedAtMs: startMs + offsetMs, finishedAtMs: startMs + offsetMs + 1700 });
      const done = await t.get(run.id);
      expect(done.status).to.equal('succeeded');
      expect(done.startedAt?.getTime()).to.equal(startMs);
      expect(done.finishedAt?.getTime()).to.equal(startMs + 1700);
      expect(done.metrics.gpuSeconds, 'the duration the backend measured').to.equal(1.7);
      expect(done.metrics.queueMs).to.equal(500);
    });
  }

  for (const [what, timing] of [
    ['±1e308', { startedAtMs: -1e308, finishedAtMs: 1e308 }],
    ['NaN', { startedAtMs: Number.NaN, finishedAtMs: 1 }],
    ['an end before the start', { startedAtMs: 5000, finishedAtMs: 1000 }],
    ['a duration longer than the run has existed', { startedAtMs: 0, finishedAtMs: 10 * HOUR }],
  ] as const) {
    it(`charge runload's own measure, never an infinite or impossible time, for timestamps of ${what}`, async () => {
      const t = await setup();
      const run = await t.create();
      await t.lifecycle.started(await t.get(run.id));
      t.w.clock.advance(3000);
      await t.lifecycle.succeeded(await t.get(run.id), [], timing);
      const done = await t.get(run.id);
      expect(done.metrics.gpuSeconds).to.equal(3);
      expect(done.metrics.runMs).to.equal(3000);
      const used = await t.w.ports.gpuLedger.usedSeconds(t.p.account.id, new Date(0), new Date(8.64e15));
      expect(used).to.equal(3);
      // The account can still run: the quota is not spent by an impossible charge.
      expect((await t.create()).status).to.equal('queued');
    });
  }
});
