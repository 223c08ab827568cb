import { expect } from 'chai';
import type { Timers } from '../ports/timers.js';

/**
 * The contract every Timers adapter meets. `elapse(ms)` lets time pass for the adapter under test
 * (real time for the system timers, a manual advance for the test ones).
 */
export function timersContract(name: string, make: () => { timers: Timers; elapse: (ms: number) => Promise<void> }): void {
  describe(`Timers contract: ${name}`, () => {
    it('calls a task once per interval until it is stopped', async () => {
      const { timers, elapse } = make();
      let calls = 0;
      const stop = timers.every(20, () => {
        calls += 1;
      });
      // Time passes in steps until the task ran twice (a busy machine delays real timers).
      for (let step = 0; step < 100 && calls < 2; step += 1) await elapse(20);
      expect(calls).to.be.at.least(2);
      stop();
      const seen = calls;
      await elapse(60);
      expect(calls, 'no call after stop').to.equal(seen);
    });

    it('never runs a task twice at once: a tick while it runs is skipped', async () => {
      const { timers, elapse } = make();
      let running = 0;
      let overlapped = false;
      let finish: () => void = () => undefined;
      const blocked = new Promise<void>((r) => {
        finish = r;
      });
      let first = true;
      const stop = timers.every(10, async () => {
        running += 1;
        if (running > 1) overlapped = true;
        if (first) {
          first = false;
          await blocked;
        }
        running -= 1;
      });
      // Released a while after the first call began, when several ticks have come.
      setTimeout(finish, 35);
      await elapse(50);
      await elapse(30);
      stop();
      expect(overlapped).to.equal(false);
    });

    it('calls a one-shot task once, after its delay, and never when stopped first', async () => {
      const { timers, elapse } = make();
      let fired = 0;
      let stoppedFired = 0;
      timers.after(20, () => {
        fired += 1;
      });
      const stop = timers.after(20, () => {
        stoppedFired += 1;
      });
      stop();
      for (let step = 0; step < 100 && fired < 1; step += 1) await elapse(20);
      expect(fired).to.equal(1);
      await elapse(60);
      expect(fired, 'once only').to.equal(1);
      expect(stoppedFired, 'a stopped timer never fires').to.equal(0);
    });
  });
}
