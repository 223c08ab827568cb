/** A run's outputs: stored side by side, in their order, and nothing left running after a failure. */
import { expect } from 'chai';
import { mapAtMost } from '@runload/core';
import { bytes, makeWorld, startedRun } from './fixture.js';

describe("A run's outputs", () => {
  it('are downloaded side by side and kept in their order', async () => {
    const { lifecycle, run, timing } = await startedRun(await makeWorld(), 1);
    // Each download answers once all three are asked for (or after 2 s, when they are asked one at a time).
    let opened = 0;
    let allOpened: () => void = () => undefined;
    const everyOneAsked = new Promise<void>((resolve) => (allOpened = resolve));
    const output = (nodeId: string, content: string) => ({
      nodeId,
      filename: `${nodeId}.png`,
      contentType: 'image/png',
      open: async () => {
        opened += 1;
        if (opened === 3) allOpened();
        await Promise.race([everyOneAsked, new Promise((resolve) => setTimeout(resolve, 2000))]);
        return bytes(Buffer.from(content));
      },
    });
    const outputs = [output('9', 'first'), output('4', 'second one'), output('7', 'third, longest')];
    const started = performance.now();
    const done = await lifecycle.succeeded(run, outputs, timing);
    expect(performance.now() - started, 'the downloads waited for each other').to.be.below(2000);
    expect(done?.status).to.equal('succeeded');
    expect(done?.outputs.map((o) => [o.nodeId, o.size])).to.deep.equal([
      ['9', 5],
      ['4', 10],
      ['7', 14],
    ]);
  });

  it('that cannot be stored leave the attempt uncharged: the GPU time is charged only with them', async () => {
    const w = await makeWorld();
    const { lifecycle, run, timing } = await startedRun(w, 3);
    const usedNow = () => w.ports.gpuLedger.usedSeconds(run.accountId, new Date(0), new Date(w.clock.nowMs() + 1));
    // The backend died while its output was read: this attempt is lost (its failover runs again).
    const lost = { nodeId: '9', filename: '9.png', contentType: 'image/png', open: () => Promise.reject(new Error('the backend went away')) };
    const error = await lifecycle.succeeded(run, [lost], timing).then(() => null, (e: unknown) => e as Error);
    expect(error?.message).to.equal('the backend went away');
    expect(await usedNow(), 'a lost attempt costs nothing').to.equal(0);
    expect((await w.ports.runs.get(run.id))?.status).to.equal('running');
    // The attempt that stores its outputs is the one charged.
    const done = await lifecycle.succeeded(run, [{ ...lost, open: async () => bytes(Buffer.from('png')) }], { startedAtMs: timing.startedAtMs, finishedAtMs: timing.startedAtMs + 2000 });
    expect(done?.status).to.equal('succeeded');
    expect(await usedNow()).to.equal(2);
  });
});

describe('mapAtMost', () => {
  it('keeps at most its limit in flight, and after a failure starts nothing more and settles only once those in flight are done', async () => {
    const started: number[] = [];
    let release: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => (release = resolve));
    let settled = false;
    const call = mapAtMost([0, 1, 2, 3, 4], 2, async (item) => {
      started.push(item);
      if (item === 0) await firstHeld;
      if (item === 1) throw new Error('item 1 failed');
      return item;
    }).finally(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled, 'settled while item 0 was still in flight').to.equal(false);
    release();
    const error = await call.then(() => null, (e: unknown) => e as Error);
    expect(error?.message).to.equal('item 1 failed');
    expect(started).to.deep.equal([0, 1]);
  });

  it('gives every result in the order of its items', async () => {
    const delays = [30, 0, 10, 0, 20];
    const results = await mapAtMost(delays, 3, async (ms, index) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return index * 10;
    });
    expect(results).to.deep.equal([0, 10, 20, 30, 40]);
  });
});
