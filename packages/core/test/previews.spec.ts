import { expect } from 'chai';
import {
  Dispatcher,
  MAX_PREVIEW_BYTES,
  nextPreview,
  NO_PREVIEW_SENT,
  RecordPreviews,
  RunLifecycle,
  RunStreams,
  type Preview,
  type PreviewInfo,
  type PreviewStore,
  type RunStreamSink,
} from '@runload/core';
import { InMemoryExecutor, InMemoryPreviewStore, ManualTimers, waitFor } from '@runload/core/testing';
import { codeOf, makeWorld } from './fixture.js';

const jpeg = (fill: number, size = 16): Preview => ({ nodeId: '3', contentType: 'image/jpeg', bytes: new Uint8Array(size).fill(fill) });
const TEN_MINUTES = 10 * 60_000;

/** A store whose writes wait until the test lets them through. */
function gatedStore(inner: PreviewStore) {
  const gates: (() => void)[] = [];
  const puts: number[] = [];
  const store: PreviewStore = {
    put: async (runId, preview, keepMs) => {
      puts.push(preview.bytes[0] ?? -1);
      await new Promise<void>((open) => gates.push(open));
      return inner.put(runId, preview, keepMs);
    },
    latest: (runId) => inner.latest(runId),
    info: (runIds) => inner.info(runIds),
    finish: (runId, keepMs) => inner.finish(runId, keepMs),
  };
  return { store, puts, release: () => gates.splice(0).forEach((open) => open()) };
}

describe('live previews in the core', () => {
  it('writes one preview of a run at a time, keeping only the newest behind it, however many come', async () => {
    const w = await makeWorld();
    const gated = gatedStore(w.ports.previews);
    const record = new RecordPreviews(gated.store, () => undefined, { keepWhileRunningMs: TEN_MINUTES });
    for (let i = 1; i <= 250; i += 1) record.offer('run-1', jpeg(i));
    expect(gated.puts).to.deep.equal([1]);
    expect(record.pending).to.equal(1);
    gated.release();
    await waitFor(() => gated.puts.length === 2, 'the newest preview to be written next');
    gated.release();
    await waitFor(() => record.pending === 0, 'the writes to end');
    expect(gated.puts).to.deep.equal([1, 250]);
    expect((await w.ports.previews.latest('run-1'))?.bytes[0]).to.equal(250);
  });

  it('drops a preview over 1 MiB and says so once per run', async () => {
    const w = await makeWorld();
    const logs: string[] = [];
    const record = new RecordPreviews(w.ports.previews, (_level, message) => logs.push(message), { keepWhileRunningMs: TEN_MINUTES });
    record.offer('run-1', jpeg(1, MAX_PREVIEW_BYTES + 1));
    record.offer('run-1', jpeg(2, MAX_PREVIEW_BYTES + 1));
    record.offer('run-1', jpeg(3, MAX_PREVIEW_BYTES));
    await waitFor(() => record.pending === 0, 'the write to end');
    expect(logs).to.deep.equal(['preview over 1 MiB dropped']);
    expect((await w.ports.previews.latest('run-1'))?.bytes[0]).to.equal(3);
  });

  it('stores the previews a followed run sends, and keeps the last one ten minutes after the run ends', async () => {
    const backend = new InMemoryExecutor();
    const w = await makeWorld({ executor: backend });
    const p = await w.principal('ultra');
    const store = new InMemoryPreviewStore(w.clock);
    const previews = new RecordPreviews(store, () => undefined, { keepWhileRunningMs: 3600_000 });
    const lifecycle = new RunLifecycle(w.ports.runs, w.ports.assets, w.ports.blobs, w.ports.workSignal, w.clock);
    const timers = new ManualTimers(w.clock);
    const dispatcher = new Dispatcher(
      { runs: w.ports.runs, appVersions: w.ports.appVersions, assets: w.ports.assets, blobs: w.ports.blobs, executor: backend, lifecycle, signal: w.ports.workSignal, clock: w.clock, timers, previews },
      { owner: 'a', leaseMs: 30_000, depth: 1, maxQueueSeconds: 3600, maxRunSeconds: 1800, sweepMs: 1000, backendGraceMs: 0, log: () => undefined },
    );
    await dispatcher.start();
    try {
      const { run } = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
      await waitFor(() => backend.job(run.id), 'the run to be submitted');
      backend.start(run.id, w.clock.nowMs());
      backend.preview(run.id, jpeg(7));
      backend.preview(run.id, { nodeId: null, contentType: 'image/png', bytes: new Uint8Array([8]) });
      const stored = await waitFor(async () => (await store.latest(run.id))?.seq === 2 && store.latest(run.id), 'the previews in the store');
      expect(stored).to.deep.include({ runId: run.id, nodeId: null, contentType: 'image/png' });
      backend.succeed(run.id, [], { startedAtMs: w.clock.nowMs(), finishedAtMs: w.clock.nowMs() + 1 });
      await waitFor(async () => (await w.ports.runs.get(run.id))?.status === 'succeeded', 'the run to succeed');
      await waitFor(() => previews.pending === 0, 'the finish to be written');
      w.clock.advance(TEN_MINUTES - 1);
      expect(await store.latest(run.id)).to.not.equal(null);
      w.clock.advance(1);
      expect(await store.latest(run.id)).to.equal(null);
    } finally {
      await dispatcher.stop();
    }
  });

  it('answers the latest preview to the run owner only', async () => {
    const w = await makeWorld();
    const [owner, other] = [await w.principal('ultra'), await w.principal('starter')];
    const { run } = await w.api.createRun.execute({ principal: owner, appVersionId: w.app.id, body: { inputs: {} } });
    expect(await codeOf(w.api.runPreviews.latest(owner, run.id))).to.equal('PREVIEW_NOT_FOUND');
    await w.ports.previews.put(run.id, jpeg(4), TEN_MINUTES);
    expect((await w.api.runPreviews.latest(owner, run.id)).bytes[0]).to.equal(4);
    expect(await codeOf(w.api.runPreviews.latest(other, run.id))).to.equal('RUN_NOT_FOUND');
  });

  it('tells a stream of a new preview at most every 500 ms, after its record', async () => {
    const w = await makeWorld();
    const p = await w.principal('ultra');
    const { run } = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
    const streams = new RunStreams(w.ports.runs, w.ports.streamSlots, w.ports.workSignal, w.clock, w.ids, { previews: w.ports.previews, pollMs: 10 });
    const told: string[] = [];
    const infos: PreviewInfo[] = [];
    const sink: RunStreamSink = {
      record: (view) => told.push(`run ${view.run.progress?.value ?? '-'}`),
      preview: (info) => {
        infos.push(info);
        told.push(`preview ${info.seq}`);
      },
      heartbeat: () => undefined,
      end: () => undefined,
    };
    const close = await streams.open(p, run.id, sink);
    try {
      await w.ports.previews.put(run.id, jpeg(1), TEN_MINUTES);
      await waitFor(() => told.includes('preview 1'), 'the first preview');
      await w.ports.previews.put(run.id, jpeg(2), TEN_MINUTES);
      await w.ports.previews.put(run.id, jpeg(3), TEN_MINUTES);
      // Two ticks later (two changes of progress told), the clock has not moved: no preview yet.
      await w.ports.runs.update(run.id, { progress: { value: 1, max: 4, nodeId: '3' } });
      await waitFor(() => told.includes('run 1'), 'a first tick');
      await w.ports.runs.update(run.id, { progress: { value: 2, max: 4, nodeId: '3' } });
      await waitFor(() => told.includes('run 2'), 'a second tick');
      expect(told).to.deep.equal(['run -', 'preview 1', 'run 1', 'run 2']);
      w.clock.advance(500);
      await waitFor(() => told.includes('preview 3'), 'the newest preview, 500 ms later');
      expect(told.filter((t) => t.startsWith('preview'))).to.deep.equal(['preview 1', 'preview 3']);
      expect(infos[1]).to.deep.equal({ runId: run.id, seq: 3, nodeId: '3', contentType: 'image/jpeg' });
    } finally {
      await close();
    }
  });

  it('keeps telling a stream of its run while the preview store does not answer', async () => {
    const w = await makeWorld();
    const p = await w.principal('ultra');
    const { run } = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
    const hung: PreviewStore = { ...w.ports.previews, info: () => new Promise(() => undefined) };
    const streams = new RunStreams(w.ports.runs, w.ports.streamSlots, w.ports.workSignal, w.clock, w.ids, { previews: hung, pollMs: 10 });
    const told: string[] = [];
    const sink: RunStreamSink = { record: (view) => told.push(`run ${view.run.progress?.value ?? '-'}`), preview: () => told.push('preview'), heartbeat: () => undefined, end: () => undefined };
    const close = await streams.open(p, run.id, sink);
    try {
      for (const value of [1, 2, 3]) {
        await w.ports.runs.update(run.id, { progress: { value, max: 4, nodeId: '3' } });
        await waitFor(() => told.includes(`run ${value}`), `progress ${value}`);
      }
    } finally {
      await close();
    }
  });

  it('decides when a preview is news for a stream', () => {
    const info = { runId: 'r', seq: 4, nodeId: null, contentType: 'image/png' as const };
    expect(nextPreview(NO_PREVIEW_SENT, info, 0)).to.deep.equal({ seq: 4, sentAtMs: 0 });
    expect(nextPreview({ seq: 4, sentAtMs: 0 }, info, 10_000)).to.equal(null);
    expect(nextPreview({ seq: 3, sentAtMs: 0 }, info, 499)).to.equal(null);
    expect(nextPreview({ seq: 3, sentAtMs: 0 }, info, 500)).to.deep.equal({ seq: 4, sentAtMs: 500 });
  });
});
