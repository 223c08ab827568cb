/**
 * A dispatcher stopped while an output's download drips in (never ending on its own): the stop
 * aborts the download instead of waiting for it, keeps nothing of it, leaves the run running and
 * unclaimed, and the next dispatcher stores the run's outcome once, charged once.
 */
import { expect } from 'chai';
import { Dispatcher, RunLifecycle, type Executor } from '@runload/core';
import { InMemoryExecutor, ManualTimers, waitFor, type InMemoryBlobStore } from '@runload/core/testing';
import { makeWorld, TINY_PNG } from './fixture.js';

const OUT = { nodeId: '4', filename: 'out.png', contentType: 'image/png', bytes: TINY_PNG };

/** One byte, then nothing until `signal` aborts (a backend dripping the rest very slowly). */
async function* drip(signal: AbortSignal | undefined): AsyncIterable<Uint8Array> {
  yield TINY_PNG.subarray(0, 1);
  await new Promise((_resolve, reject) => {
    if (signal?.aborted) reject(signal.reason as Error);
    signal?.addEventListener('abort', () => reject(signal.reason as Error));
  });
}

describe('Dispatcher stopped while an output drips in', () => {
  it('aborts the download, keeps nothing of it, and the next dispatcher stores the run once', async () => {
    const backend = new InMemoryExecutor();
    const w = await makeWorld({ executor: backend });
    const p = await w.principal('ultra');
    const lifecycle = new RunLifecycle(w.ports.runs, w.ports.assets, w.ports.blobs, w.ports.workSignal, w.clock);
    const make = (executor: Executor) =>
      new Dispatcher(
        { runs: w.ports.runs, appVersions: w.ports.appVersions, assets: w.ports.assets, blobs: w.ports.blobs, executor, lifecycle, signal: w.ports.workSignal, clock: w.clock, timers: new ManualTimers(w.clock) },
        { owner: 'instance-a', leaseMs: 30_000, depth: 1, maxQueueSeconds: 3600, maxRunSeconds: 1800, sweepMs: 1000, backendGraceMs: 0, log: () => undefined },
      );
    // This process's view of the backend: its downloads drip.
    let downloading: AbortSignal | undefined;
    let dripping = false;
    const dripped: Executor = Object.assign(Object.create(backend) as Executor, {
      fetchOutput: async (backendId: string, ref: Parameters<Executor['fetchOutput']>[1], options?: { signal?: AbortSignal }) => {
        const fetched = await backend.fetchOutput(backendId, ref);
        downloading = options?.signal;
        return { ...fetched, open: async () => ((dripping = true), drip(options?.signal)) };
      },
    });
    const first = make(dripped);
    await first.start();
    const { run } = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
    await first.idle();
    const start = w.clock.nowMs();
    backend.start(run.id, start);
    backend.succeed(run.id, [OUT], { startedAtMs: start, finishedAtMs: start + 2000 });
    await waitFor(() => dripping, 'the output download to begin');
    expect(downloading, 'the download is given the stop signal').to.not.equal(undefined);

    let deadline: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      first.stop().then(() => 'stopped'),
      new Promise<string>((resolve) => (deadline = setTimeout(() => resolve('the stop waited for the download'), 2000))),
    ]);
    clearTimeout(deadline);
    expect(stopped).to.equal('stopped');
    const left = await w.ports.runs.get(run.id);
    expect(left?.status, 'the outcome is left to the next owner').to.equal('running');
    expect(left?.leaseOwner ?? null, 'its lease released').to.equal(null);
    expect((w.ports.blobs as InMemoryBlobStore).stagedCount, 'no staged bytes left').to.equal(0);
    expect((await w.api.listAssets.execute(p, {})).assets, 'no asset listed').to.deep.equal([]);

    const second = make(backend);
    await second.start();
    await second.idle();
    const done = await w.ports.runs.get(run.id);
    expect(done?.status).to.equal('succeeded');
    expect(done?.outputs).to.have.length(1);
    expect(done?.metrics.gpuSeconds).to.equal(2);
    const month = { from: new Date(start - 86_400_000), to: new Date(start + 86_400_000) };
    expect(await w.ports.gpuLedger.usedSeconds(p.account.id, month.from, month.to), 'charged once').to.equal(2);
    await second.stop();
  });
});
