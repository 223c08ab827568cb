/**
 * A followed run's transition function as a table: each row a state, an event, the state that
 * must follow and what must be done, in order.
 */
import { expect } from 'chai';
import type { ExecutionState, TerminalExecutionState } from '@runload/core';
import { DONE, FOLLOWING, stepFollower, type FollowerEvent, type FollowerState } from '../src/follower-state.js';

const NOW = 50_000;
const STARTED: FollowerState = { ...FOLLOWING, started: true };
const message = (type: string, fields: Partial<Extract<FollowerEvent, { type: 'message' }>> = {}): FollowerEvent => ({
  type: 'message',
  message: type,
  nodeId: null,
  timestampMs: null,
  progress: null,
  ...fields,
});
const inspected = (state: ExecutionState): FollowerEvent => ({ type: 'inspected', state });
const SUCCEEDED: TerminalExecutionState = { state: 'succeeded', outputs: [], timing: null };

/** Effects in short: `tell:started@ms`, `tell:executing:3`, `tell:progress:3:1/8`, `confirm`, `confirm-soon`, `end:finished`, `end:lost`. */
function said(effects: ReturnType<typeof stepFollower>['effects']): string[] {
  return effects.map((e) => {
    if (e.do === 'confirm' || e.do === 'confirm-soon') return e.do;
    if (e.do === 'end') return `end:${e.event.type}`;
    const event = e.event;
    if (event.type === 'started') return `tell:started@${event.atMs}`;
    if (event.type === 'executing') return `tell:executing:${event.nodeId}`;
    if (event.type === 'progress') return `tell:progress:${event.nodeId}:${event.value}/${event.max}`;
    return `tell:${event.type}`;
  });
}

describe('the run followed on a ComfyUI server: state × event', () => {
  const rows: [string, FollowerState, FollowerEvent, FollowerState, string[]][] = [
    // Socket news of execution: `started` once, with the server's timestamp when it gives one.
    ['execution_start with a timestamp', FOLLOWING, message('execution_start', { timestampMs: 1234 }), STARTED, ['tell:started@1234']],
    ['execution_start without a timestamp', FOLLOWING, message('execution_start'), STARTED, [`tell:started@${NOW}`]],
    ['execution_start once started', STARTED, message('execution_start', { timestampMs: 1234 }), STARTED, []],
    ['a node executing, not started yet', FOLLOWING, message('executing', { nodeId: '3' }), STARTED, [`tell:started@${NOW}`, 'tell:executing:3']],
    ['a node executing once started', STARTED, message('executing', { nodeId: '4' }), STARTED, ['tell:executing:4']],
    ['step progress, not started yet', FOLLOWING, message('progress'), STARTED, [`tell:started@${NOW}`]],
    ['progress_state once started', STARTED, message('progress_state'), STARTED, []],
    // Progress: told once per change.
    [
      'a new progress reading',
      STARTED,
      message('progress', { progress: { value: 1, max: 8, nodeId: '3' } }),
      { ...STARTED, lastProgress: '3:1/8' },
      ['tell:progress:3:1/8'],
    ],
    ['the same reading again (said in two messages)', { ...STARTED, lastProgress: '3:1/8' }, message('progress_state', { progress: { value: 1, max: 8, nodeId: '3' } }), { ...STARTED, lastProgress: '3:1/8' }, []],
    // The end announced: told once (the server is free for the next prompt), a confirmation now,
    // and one shortly after the end messages.
    ['executing with no node (the history is written)', STARTED, message('executing'), { ...STARTED, endAnnounced: true }, ['tell:ended', 'confirm']],
    ['execution_success', STARTED, message('execution_success'), { ...STARTED, endAnnounced: true }, ['tell:ended', 'confirm', 'confirm-soon']],
    // A success the socket told whole carries its outcome: it is the end, nothing is read.
    ['execution_success told whole', STARTED, message('execution_success', { outcome: SUCCEEDED }), DONE, ['end:finished']],
    ['execution_success told whole, its start heard early in the same turn', FOLLOWING, message('execution_success', { outcome: SUCCEEDED }), DONE, ['end:finished']],
    ['execution_error', STARTED, message('execution_error'), { ...STARTED, endAnnounced: true }, ['tell:ended', 'confirm', 'confirm-soon']],
    ['execution_interrupted before any start', FOLLOWING, message('execution_interrupted'), { ...FOLLOWING, endAnnounced: true }, ['tell:ended', 'confirm', 'confirm-soon']],
    ['executing with no node after execution_success (the end told already)', { ...STARTED, endAnnounced: true }, message('executing'), { ...STARTED, endAnnounced: true }, ['confirm']],
    ['a message that says nothing of the run', STARTED, message('status'), STARTED, []],
    // Confirmations.
    ['confirmed queued', FOLLOWING, inspected({ state: 'queued', position: 2 }), FOLLOWING, []],
    ['confirmed running, not started yet', FOLLOWING, inspected({ state: 'running' }), STARTED, [`tell:started@${NOW}`]],
    ['confirmed running once started', STARTED, inspected({ state: 'running' }), STARTED, []],
    ['confirmed finished', STARTED, inspected(SUCCEEDED), DONE, ['end:finished']],
    ['confirmed interrupted, never started', FOLLOWING, inspected({ state: 'interrupted', timing: null }), DONE, ['end:finished']],
    ['confirmed unknown to the server', STARTED, inspected({ state: 'unknown' }), DONE, ['end:lost']],
    // Stopping, and a follower that is done.
    ['stop while following', STARTED, { type: 'stop' }, DONE, []],
    ['news once done', DONE, message('executing', { nodeId: '3' }), DONE, []],
    ['a confirmation once done', DONE, inspected(SUCCEEDED), DONE, []],
    ['stop once done', DONE, { type: 'stop' }, DONE, []],
  ];
  for (const [name, state, event, to, effects] of rows) {
    it(`${name}: ${state.kind} → ${to.kind}${effects.length ? ` (${effects.join(', ')})` : ''}`, () => {
      const next = stepFollower(state, event, NOW);
      expect(next.state).to.deep.equal(to);
      expect(said(next.effects)).to.deep.equal(effects);
    });
  }

  it('never changes the state it is given (it is pure)', () => {
    const state: FollowerState = { ...FOLLOWING };
    const before = JSON.stringify(state);
    stepFollower(state, message('execution_success', { progress: { value: 8, max: 8, nodeId: null } }), NOW);
    stepFollower(state, inspected(SUCCEEDED), NOW);
    expect(JSON.stringify(state)).to.equal(before);
  });
});
