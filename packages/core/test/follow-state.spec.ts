/**
 * The followed run's transition function and what becomes of a run its backend lost, as tables:
 * each row a state (or a run), an event, and what must follow.
 */
import { expect } from 'chai';
import { CoreError, stepFollowState, whenLost, type FollowEvent, type FollowState, type RunStatus, type StepEnv } from '@runload/core';

const ENV: StepEnv = { nowMs: 10_000, backendGraceMs: 5000, progressWriteMs: 250, outputReadAttempts: 5 };
const SENT: FollowState = { kind: 'sent', cancelSent: false, timedOut: false, interruptSent: false, unreachableSinceMs: null, finishFailures: 0, lastProgressMs: 0, lastProgressNodeId: null, endedOnBackend: false };

describe('the followed run: a backend that loses the run', () => {
  const rows: [string, FollowState, FollowEvent, FollowState['kind'], string | null][] = [
    ['the backend reports the run lost', SENT, { type: 'backend', event: { type: 'lost' } }, 'settled', 'lose'],
    ['a reconciliation finds it unknown', SENT, { type: 'inspected', state: { state: 'unknown' }, runStatus: 'running' }, 'settled', 'lose'],
    ['unreachable within the grace period', SENT, { type: 'unreachable' }, 'sent', null],
    ['unreachable past the grace period', { ...SENT, unreachableSinceMs: 1000 }, { type: 'unreachable' }, 'settled', 'lose'],
    ['a cancel answered "gone"', { ...SENT, cancelSent: true }, { type: 'cancel-answered', state: { state: 'unknown' } }, 'settled', 'canceled'],
    ['a submit the backend could not take', { kind: 'submitting', cancelPending: false }, { type: 'submit-failed', error: new CoreError('SERVICE_UNAVAILABLE', 'unreachable') }, 'settled', 'requeue'],
  ];
  for (const [name, state, event, to, how] of rows) {
    it(`${name}: ${state.kind} → ${to}${how ? ` (${how})` : ''}`, () => {
      const next = stepFollowState(state, event, ENV);
      expect(next.state.kind).to.equal(to);
      const settle = next.effects.find((e) => e.do === 'settle');
      expect(settle && settle.do === 'settle' ? settle.settlement.how : null).to.equal(how);
    });
  }
});

describe('the followed run: a run waiting for room on its backend', () => {
  const WAITING: FollowState = { kind: 'waiting' };
  const rows: [string, FollowEvent, FollowState['kind'], string | null, string | null][] = [
    ['its backend has room: its prompt goes', { type: 'backend-free' }, 'submitting', null, 'submit'],
    ['a cancel: no backend heard of it, canceled at once', { type: 'cancel-requested' }, 'settled', 'canceled', 'settle'],
    ['handed back (backend drained, past its queue time): queued again', { type: 'hand-back', why: 'drained' }, 'settled', 'requeue', 'settle'],
    ['a reconciliation finding it unknown changes nothing (it was never sent)', { type: 'inspected', state: { state: 'unknown' }, runStatus: 'queued' }, 'waiting', null, null],
    ['the dispatcher stops: left to its lease', { type: 'stop' }, 'settled', null, null],
  ];
  for (const [name, event, to, how, effect] of rows) {
    it(`${name}: waiting → ${to}`, () => {
      const next = stepFollowState(WAITING, event, ENV);
      expect(next.state.kind).to.equal(to);
      expect(next.effects.map((e) => e.do)).to.deep.equal(effect ? [effect] : []);
      const settle = next.effects.find((e) => e.do === 'settle');
      expect(settle && settle.do === 'settle' ? settle.settlement.how : null).to.equal(how);
    });
  }
});

describe('what becomes of a run its backend lost (failover)', () => {
  const run = (status: RunStatus, attempts: number, cancelRequested = false) => ({ status, attempts, cancelRequested });
  const rows: [string, ReturnType<typeof run>, number, ReturnType<typeof whenLost>][] = [
    ['never started: queued again, at no cost', run('queued', 1), 3, 'requeue'],
    ['never started, a cancel asked', run('canceling', 1, true), 3, 'cancel'],
    ['started, a cancel asked: a cancel wins over a failover', run('canceling', 1, true), 3, 'cancel'],
    ['started, first attempt of 3', run('running', 1), 3, 'failover'],
    ['started, second attempt of 3', run('running', 2), 3, 'failover'],
    ['started, last attempt', run('running', 3), 3, 'fail'],
    ['started, failover turned off (max_attempts 1)', run('running', 1), 1, 'fail'],
  ];
  for (const [name, lost, maxAttempts, outcome] of rows) {
    it(`${name} → ${outcome}`, () => {
      expect(whenLost(lost, maxAttempts)).to.equal(outcome);
    });
  }
});

describe('the followed run: progress writes (throttled)', () => {
  const progress = (value: number, nodeId: string | null): FollowEvent => ({ type: 'backend', event: { type: 'progress', value, max: 8, nodeId } });
  const written = { ...SENT, lastProgressMs: ENV.nowMs - 100, lastProgressNodeId: '3' } as FollowState;
  const rows: [string, FollowState, FollowEvent, boolean][] = [
    ['a step of the node last written, within the throttle', written, progress(2.5, '3'), false],
    ['a node that ended, within the throttle', written, progress(3, null), false],
    ['a node that starts, within the throttle', written, progress(3, '4'), true],
    ['a node that starts right after the end of the one before was written', { ...written, lastProgressNodeId: null } as FollowState, progress(3, '4'), true],
    ['the run completes, within the throttle', written, progress(8, null), true],
    ['a step after the throttle', { ...written, lastProgressMs: ENV.nowMs - 300 } as FollowState, progress(2.5, '3'), true],
  ];
  for (const [name, state, event, writes] of rows) {
    it(`${name}: ${writes ? 'written' : 'skipped'}`, () => {
      const next = stepFollowState(state, event, ENV);
      const write = next.effects.find((e) => e.do === 'record-progress');
      expect(Boolean(write)).to.equal(writes);
      if (write && write.do === 'record-progress') expect(write.nodeId).to.equal(event.type === 'backend' && event.event.type === 'progress' ? event.event.nodeId : undefined);
    });
  }
});

type EffectKind = ReturnType<typeof stepFollowState>['effects'][number]['do'];

describe('the followed run: a backend done with the run before its outcome is stored', () => {
  it('the end announced: stays sent, no longer taking its place on the backend, and does nothing yet', () => {
    const next = stepFollowState(SENT, { type: 'backend', event: { type: 'ended' } }, ENV);
    expect(next.state).to.deep.equal({ ...SENT, endedOnBackend: true });
    expect(next.effects).to.deep.equal([]);
  });

  it('takes no place on the backend after storing its outcome failed (the backend gave it)', () => {
    const finishing: FollowState = { kind: 'finishing', result: { state: 'succeeded', outputs: [], timing: null }, sent: SENT as Extract<FollowState, { kind: 'sent' }> };
    const next = stepFollowState(finishing, { type: 'store-failed', error: new CoreError('SERVICE_UNAVAILABLE', 'ComfyUI answered 500') }, ENV);
    expect(next.state).to.deep.include({ kind: 'sent', finishFailures: 1, endedOnBackend: true });
  });

  it('still stores the outcome when it comes', () => {
    const ended = { ...SENT, endedOnBackend: true } as FollowState;
    const result = { state: 'succeeded', outputs: [], timing: null } as const;
    const next = stepFollowState(ended, { type: 'backend', event: { type: 'finished', result } }, ENV);
    expect(next.state.kind).to.equal('finishing');
    expect(next.effects.map((e) => e.do)).to.deep.equal(['store']);
  });
});

describe('the followed run: a cancel or an interrupt that does not reach the backend', () => {
  const failure = new CoreError('SERVICE_UNAVAILABLE', 'ComfyUI answered 500');
  const rows: [string, FollowState, FollowEvent, Partial<Record<'cancelSent' | 'interruptSent' | 'timedOut', boolean>>, EffectKind[]][] = [
    ['a cancel that failed', { ...SENT, cancelSent: true } as FollowState, { type: 'cancel-failed', error: failure }, { cancelSent: false }, ['report']],
    ['a cancel asked again after one failed', SENT, { type: 'cancel-requested' }, { cancelSent: true }, ['send-cancel']],
    ['a cancel asked while one is on its way', { ...SENT, cancelSent: true } as FollowState, { type: 'cancel-requested' }, { cancelSent: true }, []],
    ['an interrupt at the time limit that failed', { ...SENT, timedOut: true, interruptSent: true } as FollowState, { type: 'interrupt-failed', error: failure }, { interruptSent: false, timedOut: true }, ['report']],
    ['the time limit seen again after the interrupt failed', { ...SENT, timedOut: true } as FollowState, { type: 'over-time-limit' }, { interruptSent: true, timedOut: true }, ['interrupt']],
    ['the time limit seen again while the interrupt is on its way', { ...SENT, timedOut: true, interruptSent: true } as FollowState, { type: 'over-time-limit' }, { interruptSent: true }, []],
  ];
  for (const [name, state, event, fields, effects] of rows) {
    it(`${name}: sent → sent, ${effects.length ? effects.join(', ') : 'nothing done'}`, () => {
      const next = stepFollowState(state, event, ENV);
      expect(next.state.kind).to.equal('sent');
      expect(next.state).to.include(fields);
      expect(next.effects.map((e) => e.do)).to.deep.equal(effects);
    });
  }
});
