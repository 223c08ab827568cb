/** A backend's probe state as a table: each row a state, a probe's outcome, what follows and what is logged. */
import { expect } from 'chai';
import { afterProbe, NOT_PROBED, probeDetail, type ProbeOutcome, type ProbeState } from '../src/probe-state.js';

const REACHABLE: ProbeState = { state: 'reachable', version: '0.3.64', lastSeenAtMs: 1_000 };
const UNREACHABLE: ProbeState = { state: 'unreachable', error: 'connect ECONNREFUSED', version: '0.3.64', lastSeenAtMs: 1_000 };
const ANSWERED: ProbeOutcome = { answered: true, version: '0.3.65', atMs: 5_000 };
const MISSED: ProbeOutcome = { answered: false, error: 'timeout' };

const rows: ReadonlyArray<[string, ProbeState, ProbeOutcome, ProbeState, 'reachable' | 'unreachable' | null]> = [
  ['first answer', NOT_PROBED, ANSWERED, { state: 'reachable', version: '0.3.65', lastSeenAtMs: 5_000 }, 'reachable'],
  ['first miss (a start without its backend says so)', NOT_PROBED, MISSED, { state: 'unreachable', error: 'timeout', version: null, lastSeenAtMs: null }, 'unreachable'],
  ['answer again: no log, newer version and time', REACHABLE, ANSWERED, { state: 'reachable', version: '0.3.65', lastSeenAtMs: 5_000 }, null],
  ['miss after answers: keeps what was last seen', REACHABLE, MISSED, { state: 'unreachable', error: 'timeout', version: '0.3.64', lastSeenAtMs: 1_000 }, 'unreachable'],
  ['miss again: logged once only, error updated', UNREACHABLE, MISSED, { state: 'unreachable', error: 'timeout', version: '0.3.64', lastSeenAtMs: 1_000 }, null],
  ['back after misses', UNREACHABLE, ANSWERED, { state: 'reachable', version: '0.3.65', lastSeenAtMs: 5_000 }, 'reachable'],
];

describe('backend probe state', () => {
  for (const [name, from, outcome, to, announce] of rows) {
    it(name, () => {
      expect(afterProbe(from, outcome)).to.deep.equal({ state: to, announce });
    });
  }

  it('tells the health detail of each state', () => {
    expect([NOT_PROBED, REACHABLE, UNREACHABLE].map(probeDetail)).to.deep.equal(['not probed yet', 'ok', 'connect ECONNREFUSED']);
  });
});
