/**
 * Creates of one account sent at once share the holds of its admission lock: one hold admits
 * many, each decided as a hold of its own would decide it, so the quota stays exact.
 */
import { expect } from 'chai';
import { CoreError, WINDOW, type NamedLocks, type Principal } from '@runload/core';
import { InProcessNamedLocks } from '@runload/core/testing';
import { finishRunOfSeconds, makeWorld } from './fixture.js';

/** The process's locks, counting the holds of each name. */
class CountedLocks implements NamedLocks {
  readonly holds = new Map<string, number>();
  private readonly inner = new InProcessNamedLocks();

  withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    return this.inner.withLock(name, () => {
      this.holds.set(name, (this.holds.get(name) ?? 0) + 1);
      return work();
    });
  }
}

const QUOTA_10 = { gpu_seconds_per_month: 10, runs_per_minute: 1000, runs_per_hour: 1000 };

async function worldWithEstimate3() {
  const locks = new CountedLocks();
  const w = await makeWorld({ locks, limits: { tiers: { starter: QUOTA_10, plus: QUOTA_10 } } });
  await finishRunOfSeconds(w, 3);
  return { w, locks };
}

type Outcome = { created: true; inFlight: number } | { created: false; code: string };

describe('Admission batches', () => {
  it('admits 30 creates sent at once in at most two holds, deciding at the quota edge as 30 holds one after another do', async () => {
    const { w, locks } = await worldWithEstimate3();
    const create = (p: Principal): Promise<Outcome> =>
      w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } }).then(
        (result) => ({ created: true, inFlight: result.quota.inFlight }),
        (error: unknown) => ({ created: false, code: CoreError.is(error) ? error.code : String(error) }),
      );

    const oneByOne = await w.principal('plus');
    const sequential: Outcome[] = [];
    for (let i = 0; i < 30; i += 1) sequential.push(await create(oneByOne));
    // One hold per create let through, and one for the fifth: the hold before it found room, so it
    // skipped the read before the windows, and its hold refused it. Each after it is refused by that read.
    expect(locks.holds.get(`gpu-admission:${oneByOne.account.id}`), 'one hold per create let through, and one refusing').to.equal(5);

    const atOnce = await w.principal('starter');
    const concurrent = await Promise.all(Array.from({ length: 30 }, () => create(atOnce)));
    // The first create may find the lock free and hold it alone; every later one joins the next hold.
    expect(locks.holds.get(`gpu-admission:${atOnce.account.id}`)).to.be.at.most(2);

    const summary = (outcomes: Outcome[]) => ({
      inFlightSeen: outcomes.flatMap((o) => (o.created ? [o.inFlight] : [])).sort((a, b) => a - b),
      refused: outcomes.filter((o) => !o.created).map((o) => (o.created ? '' : o.code)),
    });
    expect(summary(sequential)).to.deep.equal({ inFlightSeen: [0, 3, 6, 9], refused: Array(26).fill('GPU_QUOTA_EXCEEDED') });
    expect(summary(concurrent)).to.deep.equal(summary(sequential));
    expect(await w.ports.runs.estimateInFlightGpuSeconds(atOnce.account.id)).to.equal(12);
    // The refused ones gave back their place in the run windows.
    const [minute] = (await w.ports.limiter.peek([{ name: WINDOW.runMinute, subject: atOnce.account.id, period: 'minute', limit: 1000 }])).windows;
    expect(minute?.remaining, 'runs counted in the minute window').to.equal(1000 - 4);
  });

  it('reads the quota before the windows only when no hold found room for the account within the last second', async () => {
    const w = await makeWorld({ limits: { tiers: { starter: { runs_per_minute: 1000, runs_per_hour: 1000 } } } });
    const p = await w.principal('starter');
    const usedSeconds = w.ports.gpuLedger.usedSeconds.bind(w.ports.gpuLedger);
    let reads = 0;
    w.ports.gpuLedger.usedSeconds = (...args) => {
      reads += 1;
      return usedSeconds(...args);
    };
    const create = async () => {
      const before = reads;
      await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
      return reads - before;
    };
    expect(await create(), 'before the windows and under the lock').to.equal(2);
    expect(await create(), 'room was seen a moment ago: under the lock only').to.equal(1);
    w.clock.advance(1000);
    expect(await create(), 'a second later: before the windows again').to.equal(2);
  });

  it('fails only the create whose write fails, and gives back what it consumed; the others of its hold are written', async () => {
    const locks = new CountedLocks();
    const w = await makeWorld({ locks, limits: { tiers: { starter: { runs_per_minute: 1000, runs_per_hour: 1000 } } } });
    const p = await w.principal('starter');
    const create = w.ports.runs.create.bind(w.ports.runs);
    let writes = 0;
    w.ports.runs.create = async (run) => {
      writes += 1;
      if (writes === 3) throw new Error('disk full');
      return create(run);
    };

    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () =>
        w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } }).then(
          () => 'created',
          (error: unknown) => (error as Error).message,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'created')).to.have.length(7);
    expect(outcomes.filter((o) => o === 'disk full')).to.have.length(1);
    expect(locks.holds.get(`gpu-admission:${p.account.id}`)).to.be.at.most(2);
    expect(await w.ports.runs.countActive(p.account.id)).to.equal(7);
    const [minute] = (await w.ports.limiter.peek([{ name: WINDOW.runMinute, subject: p.account.id, period: 'minute', limit: 1000 }])).windows;
    expect(minute?.remaining, 'the failed write counts no run').to.equal(1000 - 7);
  });
});
