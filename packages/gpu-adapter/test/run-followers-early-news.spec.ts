/**
 * What the server says of a prompt sent from here before the run is followed: taken as said when
 * the follow begins, so the server is asked only about an end it already announced; and a success
 * its socket told whole, before or after the follow began, is the outcome without asking.
 */
import { expect } from 'chai';
import type { ExecutionState, FollowedRunEvent } from '@runload/core';
import { RunFollowers } from '../src/run-followers.js';

const RUN = 'run-1';
const SUCCEEDED: ExecutionState = { state: 'succeeded', outputs: [], timing: { startedAtMs: 1000, finishedAtMs: 1001 } };

function followersAnswering(state: ExecutionState, socket: { connected?: boolean; tellsOutcome?: boolean } = {}) {
  const asked: { endAnnounced: boolean }[] = [];
  const followers = new RunFollowers(
    {
      inspect: async (_runId, options) => {
        asked.push(options);
        return state;
      },
      runIdOf: (promptId) => promptId,
      socketConnected: () => socket.connected ?? true,
      tellsOutcomeOnSocket: () => socket.tellsOutcome ?? true,
      log: () => undefined,
    },
    60_000,
  );
  return { followers, asked };
}

/** What a ComfyUI of 2024 or later says of a prompt that succeeded, from its start (ms): one saved image, one preview. */
function toldWhole(startMs: number): { type: string; data: Record<string, unknown> }[] {
  return [
    { type: 'execution_start', data: { prompt_id: RUN, timestamp: startMs } },
    { type: 'execution_cached', data: { prompt_id: RUN, nodes: [], timestamp: startMs + 1 } },
    { type: 'executing', data: { prompt_id: RUN, node: '1' } },
    { type: 'executed', data: { prompt_id: RUN, node: '2', output: { images: [{ filename: 'preview_00001_.png', subfolder: '', type: 'temp' }] } } },
    { type: 'executed', data: { prompt_id: RUN, node: '3', output: { images: [{ filename: 'out_00001_.png', subfolder: 'a', type: 'output' }] } } },
    { type: 'execution_success', data: { prompt_id: RUN, timestamp: startMs + 40 } },
  ];
}
const TOLD_OUTCOME: ExecutionState = {
  state: 'succeeded',
  outputs: [{ nodeId: '3', filename: 'out_00001_.png', subfolder: 'a', type: 'output' }],
  timing: { startedAtMs: 5000, finishedAtMs: 5040 },
};

/** Resolves with the first event of `type` the listener gets. */
function eventsOf(events: FollowedRunEvent[], type: FollowedRunEvent['type']): Promise<FollowedRunEvent> {
  return new Promise((resolve) => {
    const look = () => {
      const found = events.find((e) => e.type === type);
      if (found) resolve(found);
      else setImmediate(look);
    };
    look();
  });
}

describe('RunFollowers: news heard before the follow', () => {
  it('tells a start heard early at once, with its time, and asks the server nothing', async () => {
    const { followers, asked } = followersAnswering({ state: 'running' });
    followers.plan(RUN, ['1', '2']);
    followers.onMessage({ type: 'execution_start', data: { prompt_id: RUN, timestamp: 1234 } });
    followers.onMessage({ type: 'executing', data: { prompt_id: RUN, node: '1' } });
    const events: FollowedRunEvent[] = [];
    const stop = followers.follow(RUN, (e) => events.push(e));
    expect(events[0]).to.deep.equal({ type: 'started', atMs: 1234 });
    await new Promise((r) => setImmediate(r));
    expect(asked).to.deep.equal([]);
    stop();
    followers.close();
  });

  it('reads the outcome of an end heard early from history, once', async () => {
    const { followers, asked } = followersAnswering(SUCCEEDED);
    followers.plan(RUN, ['1']);
    for (const type of ['execution_start', 'execution_success']) followers.onMessage({ type, data: { prompt_id: RUN } });
    followers.onMessage({ type: 'executing', data: { prompt_id: RUN, node: null } });
    const events: FollowedRunEvent[] = [];
    followers.follow(RUN, (e) => events.push(e));
    const finished = await eventsOf(events, 'finished');
    expect(finished).to.deep.equal({ type: 'finished', result: SUCCEEDED });
    expect(asked).to.deep.equal([{ endAnnounced: true }]);
    followers.close();
  });

  it('reads the outcome when the end is announced after the follow began', async () => {
    const { followers, asked } = followersAnswering(SUCCEEDED);
    followers.plan(RUN, ['1']);
    followers.onMessage({ type: 'execution_start', data: { prompt_id: RUN } });
    const events: FollowedRunEvent[] = [];
    followers.follow(RUN, (e) => events.push(e));
    expect(asked).to.deep.equal([]);
    followers.onMessage({ type: 'execution_success', data: { prompt_id: RUN } });
    await eventsOf(events, 'finished');
    expect(asked[0]).to.deep.equal({ endAnnounced: true });
    followers.close();
  });

  it('takes a success the socket told whole as the outcome, with its outputs and the server\'s times, and asks the server nothing', async () => {
    for (const early of [true, false]) {
      const { followers, asked } = followersAnswering({ state: 'running' });
      followers.plan(RUN, ['1', '2', '3']);
      const messages = toldWhole(5000);
      const events: FollowedRunEvent[] = [];
      if (!early) followers.follow(RUN, (e) => events.push(e));
      for (const m of messages) followers.onMessage(m);
      if (early) followers.follow(RUN, (e) => events.push(e));
      const finished = await eventsOf(events, 'finished');
      expect(finished, early ? 'heard before the follow' : 'heard while followed').to.deep.equal({ type: 'finished', result: TOLD_OUTCOME });
      // Its end is the outcome itself: no `ended` before it, and nothing after.
      expect(events.map((e) => e.type).filter((t) => t !== 'executing' && t !== 'progress')).to.deep.equal(['started', 'finished']);
      expect(asked).to.deep.equal([]);
      followers.close();
    }
  });

  for (const [why, setup] of [
    ['the socket connected again while the run executed', { reconnectAfter: 'executing' }],
    ['the prompt was sent while the socket was down', { connected: false }],
    ['the server is older than those that tell it whole', { tellsOutcome: false }],
    ['the start was not heard', { drop: 'execution_start' }],
  ] as const) {
    it(`reads the outcome of a success from history when ${why}`, async () => {
      const { followers, asked } = followersAnswering(SUCCEEDED, { connected: 'connected' in setup ? setup.connected : true, tellsOutcome: 'tellsOutcome' in setup ? setup.tellsOutcome : true });
      followers.plan(RUN, ['1', '2', '3']);
      const events: FollowedRunEvent[] = [];
      followers.follow(RUN, (e) => events.push(e));
      for (const m of toldWhole(5000)) {
        if ('drop' in setup && m.type === setup.drop) continue;
        followers.onMessage(m);
        if ('reconnectAfter' in setup && m.type === setup.reconnectAfter) followers.reconnected();
      }
      expect(await eventsOf(events, 'finished')).to.deep.equal({ type: 'finished', result: SUCCEEDED });
      expect(asked, 'the server was asked').to.not.be.empty;
      followers.close();
    });
  }

  it('reads the outcome of a failure from history, whatever the socket told', async () => {
    const failed: ExecutionState = { state: 'failed', error: { code: 'EXECUTION_ERROR', message: 'boom', nodeId: '2', nodeType: 'ImageBlur' }, timing: null };
    const { followers, asked } = followersAnswering(failed);
    followers.plan(RUN, ['1', '2']);
    const events: FollowedRunEvent[] = [];
    followers.follow(RUN, (e) => events.push(e));
    followers.onMessage({ type: 'execution_start', data: { prompt_id: RUN, timestamp: 1 } });
    followers.onMessage({ type: 'execution_error', data: { prompt_id: RUN, node_id: '2', node_type: 'ImageBlur', exception_message: 'boom', timestamp: 2 } });
    expect(await eventsOf(events, 'finished')).to.deep.equal({ type: 'finished', result: failed });
    expect(asked[0]).to.deep.equal({ endAnnounced: true });
    followers.close();
  });

  it('asks the server at once about a run it did not send (it may have ended before anyone listened)', async () => {
    const { followers, asked } = followersAnswering(SUCCEEDED);
    const events: FollowedRunEvent[] = [];
    followers.follow(RUN, (e) => events.push(e));
    await eventsOf(events, 'finished');
    expect(asked).to.deep.equal([{ endAnnounced: false }]);
    followers.close();
  });
});
