import { expect } from 'chai';
import { TickBatch } from '../src/tick-batch.js';

describe('TickBatch', () => {
  it('serves the calls of one turn with one execution, each caller getting its own answer', async () => {
    const batches: number[][] = [];
    const batch = new TickBatch<number, number>(async (items) => {
      batches.push([...items]);
      return items.map((n) => n * 10);
    });
    const answers = await Promise.all([1, 2, 3].map((n) => batch.add(n)));
    expect(answers).to.deep.equal([10, 20, 30]);
    expect(batches).to.deep.equal([[1, 2, 3]]);
    expect(await batch.add(4)).to.equal(40); // a later turn: a batch of its own
    expect(batches).to.have.length(2);
  });

  it('never puts more than maxItems in one execution', async () => {
    const sizes: number[] = [];
    const batch = new TickBatch<number, number>(async (items) => (sizes.push(items.length), items.map((n) => n)), { maxItems: 2 });
    await Promise.all([1, 2, 3, 4, 5].map((n) => batch.add(n)));
    expect(sizes).to.deep.equal([2, 2, 1]);
  });

  it('fails every caller of a failed batch (reads)', async () => {
    const batch = new TickBatch<number, number>(async () => {
      throw new Error('database gone');
    });
    const outcomes = await Promise.allSettled([1, 2].map((n) => batch.add(n)));
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : 'ok'))).to.deep.equal(['database gone', 'database gone']);
  });

  it('with isolateFailures, fails only the caller whose item is bad (writes)', async () => {
    const batch = new TickBatch<number, string>(
      async (items) => {
        if (items.includes(2)) throw new Error('duplicate key 2');
        return items.map((n) => `stored ${n}`);
      },
      { isolateFailures: true },
    );
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => batch.add(n)));
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).to.deep.equal(['stored 1', 'duplicate key 2', 'stored 3']);
  });
});
