/**
 * What the server says of a prompt sent from here before the run is followed: taken as said when
 * the follow begins, so the server is asked only about an end it already announced.
 */
import { expect } from 'chai';
import type { ExecutionState, FollowedRunEvent } from '@runload/core';
import { RunFollowers } from '../src/run-followers.js';

const RUN = 'run-1';
const SUCCEEDED: ExecutionState = { state: 'succeeded', outputs: [], timing: { startedAtMs: 1000, finishedAtMs: 1001 } };

function followersAnswering(state: ExecutionState) {
  const asked: { endAnnounced: boolean }[] = [];
  const followers = new RunFollowers(
    {
      inspect: async (_runId, options) => {
        asked.push(options);
        return state;
      },
      runIdOf: (promptId) => promptId,
      log: () => undefined,
    },
    60_000,
  );
  return { followers, asked };
}

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

  it('asks the server at once about a run it did not send (it may have ended before anyone listened)', async () => {
    const { followers, asked } = followersAnswering(SUCCEEDED);
    const events: FollowedRunEvent[] = [];
    followers.follow(RUN, (e) => events.push(e));
    await eventsOf(events, 'finished');
    expect(asked).to.deep.equal([{ endAnnounced: false }]);
    followers.close();
  });
});
