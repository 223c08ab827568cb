/** Teardown: parts stop in the reverse order they were started, every one is tried, and once only. */
import { expect } from 'chai';
import { stopAtTeardown, Teardown, TEARDOWN } from '@runload/core';

describe('Teardown', () => {
  it('stops the parts in the reverse order they were registered, each awaited before the next', async () => {
    const teardown = new Teardown();
    const events: string[] = [];
    const part = (name: string) =>
      teardown.add(name, async () => {
        events.push(`${name} stopping`);
        await new Promise<void>((resolve) => setImmediate(resolve));
        events.push(`${name} stopped`);
      });
    part('database');
    part('dispatcher');
    part('http server');
    expect(teardown.names()).to.deep.equal(['database', 'dispatcher', 'http server']);
    await teardown.run();
    expect(events).to.deep.equal(['http server stopping', 'http server stopped', 'dispatcher stopping', 'dispatcher stopped', 'database stopping', 'database stopped']);
  });

  it('tries every part when one fails, then reports the failure by name', async () => {
    const teardown = new Teardown();
    const stopped: string[] = [];
    teardown.add('database', () => void stopped.push('database'));
    teardown.add('executor', () => {
      throw new Error('socket hang up');
    });
    teardown.add('http server', () => void stopped.push('http server'));
    let failure: unknown = null;
    await teardown.run().catch((error: unknown) => (failure = error));
    expect(stopped).to.deep.equal(['http server', 'database']);
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.equal('stopping executor failed: socket hang up');
  });

  it('reports several failures together', async () => {
    const teardown = new Teardown();
    teardown.add('a', () => Promise.reject(new Error('one')));
    teardown.add('b', () => Promise.reject(new Error('two')));
    let failure: unknown = null;
    await teardown.run().catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(AggregateError);
    expect((failure as AggregateError).errors.map((e: Error) => e.message)).to.deep.equal(['stopping b failed: two', 'stopping a failed: one']);
  });

  it('runs once: a second call returns the same promise and stops nothing again', async () => {
    const teardown = new Teardown();
    let stops = 0;
    teardown.add('part', () => void (stops += 1));
    const first = teardown.run();
    expect(teardown.run()).to.equal(first);
    await first;
    await teardown.run();
    expect(stops).to.equal(1);
    expect(teardown.closed).to.equal(true);
  });

  it('stops and refuses a part started once teardown has begun', async () => {
    const teardown = new Teardown();
    await teardown.run();
    let stopped!: () => void;
    const stoppedLate = new Promise<void>((resolve) => (stopped = resolve));
    expect(() => teardown.add('http server', stopped)).to.throw('http server was started while the process was shutting down; it has been stopped again');
    await stoppedLate;
  });

  it('registers a value from a container activation, found under its token', async () => {
    const teardown = new Teardown();
    const closed: string[] = [];
    const context = { get: (token: symbol) => (token === TEARDOWN ? teardown : undefined) };
    const server = { name: 'server', close: () => void closed.push('server') };
    expect(stopAtTeardown('http server', (s: typeof server) => s.close())(context, server)).to.equal(server);
    expect(teardown.names()).to.deep.equal(['http server']);
    await teardown.run();
    expect(closed).to.deep.equal(['server']);
  });
});
