/** The contract of StreamSlots: at most `max` live slots per account, across every instance. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { StreamSlots } from '../ports/stream-slots.js';
import { STORAGE_CONTRACT_PARENTS } from './run-repository.contract.js';

const [ACCOUNT, OTHER] = STORAGE_CONTRACT_PARENTS.accountIds as unknown as [string, string];
const T = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(T + ms);

export function describeStreamSlotsContract(name: string, setup: () => Promise<{ subject: StreamSlots; teardown?: () => Promise<void> }>): void {
  describe(`StreamSlots contract: ${name}`, function () {
    let slots: StreamSlots;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => ({ subject: slots, teardown } = await setup()));
    afterEach(async () => teardown?.());

    it('grants at most max slots per account, even to concurrent asks, and frees a released one at once', async () => {
      const holders = Array.from({ length: 8 }, () => randomUUID());
      const granted = await Promise.all(holders.map((h) => slots.acquire(ACCOUNT, h, 5, at(0), at(45_000))));
      expect(granted.filter(Boolean)).to.have.length(5);
      expect(await slots.acquire(OTHER, randomUUID(), 5, at(0), at(45_000))).to.equal(true);
      const holder = holders[granted.indexOf(true)] as string;
      await slots.release(holder);
      expect(await slots.acquire(ACCOUNT, randomUUID(), 5, at(1), at(45_001))).to.equal(true);
      expect(await slots.acquire(ACCOUNT, randomUUID(), 5, at(2), at(45_002))).to.equal(false);
    });

    it('grants each of a burst of concurrent asks while slots remain, each a slot of its own', async () => {
      const holders = Array.from({ length: 20 }, () => randomUUID());
      const granted = await Promise.all(holders.map((h) => slots.acquire(ACCOUNT, h, 20, at(0), at(45_000))));
      expect(granted.every(Boolean), 'every ask granted').to.equal(true);
      expect(await slots.acquire(ACCOUNT, randomUUID(), 20, at(0), at(45_000))).to.equal(false);
      // Each holder has a slot of its own: releasing them one by one frees one slot each time.
      for (const h of holders.slice(0, 3)) await slots.release(h);
      const again = await Promise.all(Array.from({ length: 4 }, () => slots.acquire(ACCOUNT, randomUUID(), 20, at(1), at(45_001))));
      expect(again.filter(Boolean)).to.have.length(3);
    });

    it('lets a slot lapse when its lease is not renewed, and keeps a renewed one', async () => {
      const [a, b] = [randomUUID(), randomUUID()];
      expect(await slots.acquire(ACCOUNT, a, 2, at(0), at(45_000))).to.equal(true);
      expect(await slots.acquire(ACCOUNT, b, 2, at(0), at(45_000))).to.equal(true);
      await slots.renew([a], at(90_000));
      expect(await slots.acquire(ACCOUNT, randomUUID(), 2, at(44_999), at(90_000))).to.equal(false);
      expect(await slots.acquire(ACCOUNT, randomUUID(), 2, at(45_000), at(90_000))).to.equal(true);
      expect(await slots.acquire(ACCOUNT, randomUUID(), 2, at(45_001), at(90_000))).to.equal(false);
    });
  });
}
