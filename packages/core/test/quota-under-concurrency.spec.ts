/**
 * The GPU quota admits a run while used plus the estimates of the runs in flight stays under it:
 * creates sent at once must not all read the same state and all pass.
 */
import { expect } from 'chai';
import { CoreError } from '@runload/core';
import { finishRunOfSeconds, makeWorld } from './fixture.js';

describe('GPU quota under concurrency', () => {
  it('admits from 30 creates at once no more than sequential creates admit (quota 10 GPU-s, estimate 3 s: 4)', async () => {
    const w = await makeWorld({ limits: { tiers: { starter: { gpu_seconds_per_month: 10, runs_per_minute: 1000, runs_per_hour: 1000 } } } });
    await finishRunOfSeconds(w, 3);

    const p = await w.principal('starter');
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, () =>
        w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } }).then(
          () => 'created',
          (error: unknown) => (CoreError.is(error) ? error.code : String(error)),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'created')).to.have.length(4);
    expect(outcomes.filter((o) => o === 'GPU_QUOTA_EXCEEDED')).to.have.length(26);
    expect(await w.ports.runs.estimateInFlightGpuSeconds(p.account.id)).to.equal(12);
    // The 26 refused by the quota under the lock had passed the run windows first: given back.
    const view = await w.api.runAdmission.peek(p.account);
    expect(view.windows.map((s) => s.remaining), 'the minute and hour windows count the 4 runs created only').to.deep.equal([996, 996]);
  });
});
