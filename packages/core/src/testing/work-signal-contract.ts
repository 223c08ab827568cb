/** The contract of WorkSignal, run by the in-process and the Redis signal. */
import { expect } from 'chai';
import type { WorkSignal } from '../ports/work-signal.js';
import { waitFor } from './wait-for.js';

export interface WorkSignalFixture {
  readonly signal: WorkSignal;
  /** A signal of a second instance sharing the same backend, when the adapter has one. */
  readonly peer?: WorkSignal;
  teardown?(): Promise<void>;
}

/** `shared`: the adapter reaches other instances (its fixture provides `peer`). */
export function describeWorkSignalContract(name: string, setup: () => Promise<WorkSignalFixture>, options: { shared: boolean }): void {
  describe(`work signal contract: ${name}`, () => {
    let f: WorkSignalFixture;
    beforeEach(async () => (f = await setup()));
    afterEach(async () => f.teardown?.());

    it('reaches every subscriber, even when one of them throws, and stops after unsubscribe', async () => {
      const heard: string[] = [];
      // A listener that stays: once it has heard a notification, every subscriber would have.
      const witnessed: string[] = [];
      f.signal.subscribe(() => {
        throw new Error('a broken listener');
      });
      const stop = f.signal.subscribe((reason) => heard.push(reason));
      f.signal.subscribe((reason) => witnessed.push(reason));
      f.signal.notify('run-queued');
      await waitFor(() => witnessed.includes('run-queued'), 'the notification to reach the subscribers');
      expect(heard).to.deep.equal(['run-queued']);
      stop();
      f.signal.notify('run-finished');
      await waitFor(() => witnessed.includes('run-finished'), 'the second notification to reach the subscribers left');
      expect(heard).to.deep.equal(['run-queued']);
    });

    if (!options.shared) return;
    it('reaches the subscribers of another instance', async () => {
      if (!f.peer) throw new Error('a shared signal fixture must provide a peer');
      const peer = f.peer;
      const heard: string[] = [];
      peer.subscribe((reason) => heard.push(reason));
      // The peer listens once it hears anything from this instance: until then, notifications may be lost.
      await waitFor(() => (f.signal.notify('run-requeued'), heard.length > 0), 'the peer to be listening', { timeoutMs: 3000, intervalMs: 20 });
      f.signal.notify('run-cancel');
      await waitFor(() => heard.includes('run-cancel'), 'the notification to reach the peer', { timeoutMs: 3000 });
      expect(heard.filter((reason) => reason !== 'run-requeued')).to.deep.equal(['run-cancel']);
    });
  });
}
