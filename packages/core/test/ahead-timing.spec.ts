import { expect } from 'chai';
import { aheadWindow, ExpectedHolds } from '@runload/core';

describe('claiming ahead: when a full backend\'s next run is due', () => {
  const learned = (pairs: [string, number][]) => {
    const holds = new ExpectedHolds();
    for (const [version, ms] of pairs) holds.note(version, ms);
    return holds;
  };

  it('learns a version\'s hold as a mean leaning to its latest runs, and how far its runs stray from it', () => {
    expect(learned([['v1', 1000]]).of('v1')).to.deep.equal({ meanMs: 1000, deviationMs: 0 });
    expect(learned([['v1', 1000], ['v1', 2000]]).of('v1')).to.deep.equal({ meanMs: 1250, deviationMs: 250 });
    expect(learned([['v1', 1000]]).of('v2')).to.equal(undefined);
  });

  it('opens earlier and closes later by twice the usual straying of the version\'s runs', () => {
    // Mean 1250 ms, straying 250 ms: from 1250 - 50 - 500 to 1250 + 50 + 500.
    const holds = learned([['v1', 1000], ['v1', 2000]]);
    const held = [{ appVersionId: 'v1', heldSinceMs: 0 }];
    expect(aheadWindow(held, holds, 0, 50)).to.deep.equal({ open: false, opensAtMs: 700 });
    expect(aheadWindow(held, holds, 700, 50)).to.deep.equal({ open: true });
    expect(aheadWindow(held, holds, 1800, 50)).to.deep.equal({ open: true });
    expect(aheadWindow(held, holds, 1801, 50)).to.deep.equal({ open: false, opensAtMs: null });
  });

  it('opens from the lead before the earliest expected end to the lead after it', () => {
    const holds = learned([['v1', 1000], ['v2', 500]]);
    const held = [{ appVersionId: 'v1', heldSinceMs: 0 }, { appVersionId: 'v2', heldSinceMs: 100 }];
    expect(aheadWindow(held, holds, 0, 50)).to.deep.equal({ open: false, opensAtMs: 550 });
    expect(aheadWindow(held, holds, 550, 50)).to.deep.equal({ open: true });
    expect(aheadWindow(held, holds, 650, 50)).to.deep.equal({ open: true });
    // The v2 run overruns from 650 on: the v1 run's window is the next.
    expect(aheadWindow(held, holds, 651, 50)).to.deep.equal({ open: false, opensAtMs: 950 });
    expect(aheadWindow(held, holds, 1051, 50)).to.deep.equal({ open: false, opensAtMs: null });
  });

  it('never opens for runs of unknown hold or start, nor for runs shorter than two leads', () => {
    const holds = learned([['short', 99]]);
    expect(aheadWindow([{ appVersionId: 'unknown', heldSinceMs: 0 }], holds, 0, 50)).to.deep.equal({ open: false, opensAtMs: null });
    expect(aheadWindow([{ appVersionId: 'short', heldSinceMs: 0 }], holds, 60, 50)).to.deep.equal({ open: false, opensAtMs: null });
    expect(aheadWindow([{ appVersionId: 'short', heldSinceMs: null }], learned([['short', 1000]]), 990, 50)).to.deep.equal({ open: false, opensAtMs: null });
  });

  it('forgets the versions least recently seen past a thousand', () => {
    const holds = new ExpectedHolds();
    for (let i = 0; i < 1001; i += 1) holds.note(`v${i}`, 1000);
    expect(holds.of('v0')).to.equal(undefined);
    expect(holds.of('v1000')?.meanMs).to.equal(1000);
  });
});
