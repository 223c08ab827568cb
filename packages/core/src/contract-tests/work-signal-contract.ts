/** The contract of WorkSignal, run by the in-process and the Redis signal. */
import { expect } from 'chai';
import type { WorkSignal } from '../ports/work-signal.js';

export interface WorkSignalFixture {
  readonly signal: WorkSignal;
  /** A signal of a second instance sharing the same backend, when the adapter has one. */
  readonly peer?: WorkSignal;
  teardown?(): Promise<void>;
}

const settle = () => new Promise((r) => setTimeout(r, 100));

/** `shared`: the adapter reaches other instances (its fixture provides `peer`). */
export function describeWorkSignalContract(name: string, setup: () => Promise<WorkSignalFixture>, options: { shared: boolean }): void {
  describe(`work signal contract: ${name}`, () => {
    let f: WorkSignalFixture;
    beforeEach(async () => (f = await setup()));
    afterEach(async () => f.teardown?.());

    it('reaches every subscriber, even when one of them throws, and stops after unsubscribe', async () => {
      const heard: string[] = [];
      f.signal.subscribe(() => {
        throw new Error('a broken listener');
      });
      const stop = f.signal.subscribe((reason) => heard.push(reason));
      f.signal.notify('run-queued');
      await settle();
      expect(heard).to.deep.equal(['run-queued']);
      stop();
      f.signal.notify('run-finished');
      await settle();
      expect(heard).to.deep.equal(['run-queued']);
    });

    if (!options.shared) return;
    it('reaches the subscribers of another instance', async () => {
      if (!f.peer) throw new Error('a shared signal fixture must provide a peer');
      const heard: string[] = [];
      f.peer.subscribe((reason) => heard.push(reason));
      await settle();
      f.signal.notify('run-cancel');
      const until = Date.now() + 3000;
      while (heard.length === 0 && Date.now() < until) await settle();
      expect(heard).to.deep.equal(['run-cancel']);
    });
  });
}
