/** The contract of NamedLocks. Every adapter runs it. */
import { expect } from 'chai';
import type { NamedLocks } from '../ports/named-locks.js';

export function describeNamedLocksContract(
  name: string,
  /** `another` is the same storage as a second instance sees it (the subject itself for one process). */
  setup: () => Promise<{ subject: NamedLocks; another: NamedLocks; teardown?: () => Promise<void> }>,
): void {
  describe(`NamedLocks contract: ${name}`, () => {
    let locks: NamedLocks;
    let another: NamedLocks;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      locks = made.subject;
      another = made.another;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    it('runs holders of one name one at a time, on one instance and across two', async () => {
      let inside = 0;
      let most = 0;
      const order: number[] = [];
      const hold = (via: NamedLocks, i: number) =>
        via.withLock('account-1', async () => {
          inside += 1;
          most = Math.max(most, inside);
          // Others get every chance to come in meanwhile.
          for (let k = 0; k < 5; k += 1) await new Promise((resolve) => setImmediate(resolve));
          order.push(i);
          inside -= 1;
          return i;
        });
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => hold(i % 2 === 0 ? locks : another, i)));
      expect(results).to.deep.equal(Array.from({ length: 12 }, (_, i) => i));
      expect(most, 'holders inside at once').to.equal(1);
      expect(order).to.have.length(12);
    });

    it('keeps names apart, and releases the lock when the work fails', async () => {
      let release: () => void = () => undefined;
      const holding = locks.withLock('a', () => new Promise<void>((resolve) => (release = resolve)));
      expect(await another.withLock('b', async () => 'b ran')).to.equal('b ran');
      release();
      await holding;
      const error = await locks.withLock('a', async () => Promise.reject(new Error('boom'))).catch((e: unknown) => e);
      expect((error as Error).message).to.equal('boom');
      expect(await another.withLock('a', async () => 'free again')).to.equal('free again');
    });
  });
}
