/** The contract of WorkSignal, run by the in-process and the Redis signal. */
import { expect } from 'chai';
import type { RunChange } from '../domain/run-change.js';
import type { WorkSignal } from '../ports/work-signal.js';
import { waitFor } from '../testing/wait-for.js';

export interface WorkSignalFixture {
  readonly signal: WorkSignal;
  /** A signal of a second instance sharing the same backend, when the adapter has one. */
  readonly peer?: WorkSignal;
  /** Resolves once both signals hear each other (a shared adapter's subscriptions are confirmed). */
  ready?(): Promise<void>;
  teardown?(): Promise<void>;
}

/** A run change as the lifecycle announces it, with `status` and `value` of progress varied. */
function change(status: RunChange['status'], value: number): RunChange {
  return {
    id: 'run-1',
    status,
    startedAt: new Date(Date.UTC(2026, 2, 10, 12, 0, 0, 250)),
    finishedAt: status === 'succeeded' ? new Date(Date.UTC(2026, 2, 10, 12, 0, 1)) : null,
    progress: { value, max: 4, nodeId: '3' },
    outputs: [],
    error: null,
    metrics: { queueMs: 250, runMs: null, gpuSeconds: null },
    backendId: 'b1',
    leaseOwner: 'a',
    leaseExpiresAt: new Date(Date.UTC(2026, 2, 10, 12, 0, 30)),
    cancelRequested: false,
    attempts: 1,
  };
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

    it('tells its own subscribers who caused a notification, when the notifier says', async () => {
      const heard: [string, string | undefined][] = [];
      f.signal.subscribe((reason, from) => heard.push([reason, from]));
      f.signal.notify('run-finished', 'instance-a');
      f.signal.notify('run-queued');
      await waitFor(() => heard.length >= 2, 'both notifications');
      expect(heard).to.deep.equal([
        ['run-finished', 'instance-a'],
        ['run-queued', undefined],
      ]);
    });

    it('tells each run change to its subscribers at once, and stops after unsubscribe', () => {
      const heard: RunChange[] = [];
      f.signal.subscribeChanges(() => {
        throw new Error('a broken listener');
      });
      const stop = f.signal.subscribeChanges((c) => heard.push(c));
      f.signal.announce(change('running', 1));
      expect(heard).to.deep.equal([change('running', 1)]);
      stop();
      f.signal.announce(change('succeeded', 4));
      expect(heard).to.have.length(1);
    });

    if (!options.shared) return;
    it('tells another instance each run change, in the order announced, dates and all', async () => {
      if (!f.peer) throw new Error('a shared signal fixture must provide a peer');
      const heard: RunChange[] = [];
      f.peer.subscribeChanges((c) => heard.push(c));
      await f.ready?.();
      const sent = [change('running', 1), change('running', 2), change('succeeded', 4)];
      for (const c of sent) f.signal.announce(c);
      await waitFor(() => heard.length >= sent.length, 'the changes on the other instance', { timeoutMs: 3000 }).catch(() => undefined);
      expect(heard).to.deep.equal(sent);
    });

    it('reaches the subscribers of another instance', async () => {
      if (!f.peer) throw new Error('a shared signal fixture must provide a peer');
      const peer = f.peer;
      const heard: string[] = [];
      const causes: (string | undefined)[] = [];
      peer.subscribe((reason, from) => {
        heard.push(reason);
        causes.push(from);
      });
      await f.ready?.();
      // The peer listens once it hears anything from this instance: until then, notifications may be lost.
      await waitFor(() => (f.signal.notify('run-requeued'), heard.length > 0), 'the peer to be listening', { timeoutMs: 3000, intervalMs: 20 });
      f.signal.notify('run-cancel');
      f.signal.notify('run-finished', 'instance-a');
      await waitFor(() => heard.includes('run-finished'), 'the notifications to reach the peer', { timeoutMs: 3000 });
      expect(heard.filter((reason) => reason !== 'run-requeued')).to.deep.equal(['run-cancel', 'run-finished']);
      // Who caused it names something of the notifying instance only (a dispatcher of its own).
      expect(causes.filter((from) => from !== undefined)).to.deep.equal([]);
    });
  });
}
