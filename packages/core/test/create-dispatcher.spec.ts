/** createDispatcher: the dispatcher wired from the ports and the limits, as the API is by createRunloadApi. */
import { expect } from 'chai';
import { createDispatcher, type Transition } from '@runload/core';
import { InMemoryExecutor, ManualTimers } from '@runload/core/testing';
import { makeWorld, TINY_PNG } from './fixture.js';

describe('createDispatcher', () => {
  it('runs a run to its end on the ports, claimed under the instance name it is given', async () => {
    const backend = new InMemoryExecutor();
    const w = await makeWorld({ executor: backend });
    const p = await w.principal('ultra');
    const transitions: Transition[] = [];
    const logs: string[] = [];
    const dispatcher = createDispatcher(w.ports, w.limits, {
      owner: 'instance-a',
      leaseMs: 30_000,
      depth: 1,
      timers: new ManualTimers(w.clock),
      log: (_level, message) => logs.push(message),
      onTransition: (change) => transitions.push(change),
    });
    await dispatcher.start();
    try {
      const run = (await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } })).run;
      await dispatcher.idle();
      const claimed = await w.ports.runs.get(run.id);
      expect(claimed?.leaseOwner, 'claimed under the name it was given').to.equal('instance-a');
      const at = w.clock.nowMs();
      backend.start(run.id, at);
      backend.succeed(run.id, [{ nodeId: '4', filename: 'out.png', contentType: 'image/png', bytes: TINY_PNG }], { startedAtMs: at, finishedAtMs: at + 2000 });
      await dispatcher.idle();
      expect((await w.ports.runs.get(run.id))?.status).to.equal('succeeded');
      expect(transitions.map((t) => t.to)).to.include('settled');
    } finally {
      await dispatcher.stop();
    }
    expect(dispatcher.inFlight()).to.equal(0);
  });
});
