import { expect } from 'chai';
import type { FollowedRunEvent } from '@runload/core';
import { IN_MEMORY_BACKEND, InMemoryExecutor } from '@runload/core/testing';
import { describeExecutorContract } from '@runload/core/contract-tests';

describeExecutorContract('in-memory', async () => {
  const executor = new InMemoryExecutor();
  executor.autoRun = true;
  const job = (runId: string) => ({ runId, workflow: {}, inputs: {}, media: {} });
  return {
    executor,
    backendId: IN_MEMORY_BACKEND,
    job,
    invalidJob: (runId) => {
      executor.rejectNext = { code: 'VALIDATION_ERROR', message: 'invalid', nodeId: null, nodeType: null };
      return job(runId);
    },
    hold: () => {
      executor.held = true;
    },
    release: (runId) => {
      executor.held = false;
      executor.runScripted(runId);
    },
    slowDown: () => {
      executor.held = true;
    },
    whenRunning: async (runId) => executor.start(runId, Date.now()),
    failNext: () => {
      executor.failNextRun = true;
    },
    forgetAll: async () => executor.forgetAll(),
    teardown: () => executor.close(),
  };
});

describe('InMemoryExecutor', () => {
  const job = (runId: string) => ({ runId, workflow: {}, inputs: {}, media: {} });

  it('is healthy by default, and keeps what is submitted queued', async () => {
    const executor = new InMemoryExecutor();
    expect((await executor.health()).available).to.equal(true);
    await executor.submit(IN_MEMORY_BACKEND, job('r1'));
    // Not synchronisation: ten times autoRun's 1 ms start, so an executor that ran runs unasked would show it here.
    await new Promise((r) => setTimeout(r, 10));
    expect(await executor.inspect(IN_MEMORY_BACKEND, 'r1')).to.deep.equal({ state: 'queued', position: 0 });
  });

  it('offers its backend to placement while available, and lacks what it is told to', async () => {
    const executor = new InMemoryExecutor();
    expect(executor.placement()).to.deep.equal([{ id: IN_MEMORY_BACKEND, foreignPrompts: 0 }]);
    const work = { workflow: { '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sdxl.safetensors' } } }, inputs: {} };
    expect(executor.missingEverywhere(work)).to.equal(null);
    executor.missing.add('sdxl.safetensors');
    expect(executor.lacks(IN_MEMORY_BACKEND, work)).to.equal('sdxl.safetensors');
    expect(executor.missingEverywhere(work)).to.equal('no backend has sdxl.safetensors');
    executor.available = false;
    expect(executor.placement()).to.deep.equal([]);
  });

  it('reports scripted events in order, ending with one terminal event', async () => {
    const executor = new InMemoryExecutor();
    await executor.submit(IN_MEMORY_BACKEND, job('r1'));
    const events: FollowedRunEvent[] = [];
    executor.follow(IN_MEMORY_BACKEND, 'r1', (e) => events.push(e));
    executor.start('r1', 1000);
    executor.executing('r1', '3');
    executor.progress('r1', 1, 2, '3');
    executor.fail('r1', { code: 'EXECUTION_ERROR', message: 'boom', nodeId: '3', nodeType: 'KSampler' }, { startedAtMs: 1000, finishedAtMs: 1200 });
    expect(events.map((e) => e.type)).to.deep.equal(['started', 'executing', 'progress', 'finished']);
    expect(events[3]).to.deep.equal({
      type: 'finished',
      result: { state: 'failed', error: { code: 'EXECUTION_ERROR', message: 'boom', nodeId: '3', nodeType: 'KSampler' }, timing: { startedAtMs: 1000, finishedAtMs: 1200 } },
    });
  });
});
