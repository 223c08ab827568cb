import { expect } from 'chai';
import { CoreError } from '@runload/core';
import { makeWorld, T0 } from './fixture.js';

describe('Limits', () => {
  it('the general window admits 120 a minute, refuses the 121st, and resets exactly at the minute', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    for (let i = 0; i < 120; i += 1) await w.api.generalLimit.execute(p);
    w.clock.set(T0 + 59_999);
    const error = await w.api.generalLimit.execute(p).then(() => null, (e: unknown) => e);
    expect(CoreError.hasCode(error, 'RATE_LIMITED')).to.equal(true);
    expect((error as CoreError).retryAfterSeconds).to.equal(1);
    expect((error as CoreError).windows?.[0]).to.include({ remaining: 0, limit: 120, resetAt: (T0 + 60_000) / 1000 });
    w.clock.set(T0 + 60_000);
    const state = await w.api.generalLimit.execute(p);
    expect(state).to.include({ remaining: 119, resetAt: (T0 + 120_000) / 1000 });
  });

  it('admits 10 Starter runs a minute; the 11th is refused and consumes nothing', async () => {
    const w = await makeWorld();
    const p = await w.principal('starter');
    for (let i = 0; i < 10; i += 1) await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
    const refused = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } }).catch((e: unknown) => e);
    expect(CoreError.hasCode(refused, 'RATE_LIMITED')).to.equal(true);
    const view = await w.api.runAdmission.peek(p.account);
    expect(view.windows.map((s) => [s.name, s.remaining])).to.deep.equal([['run-minute', 0], ['run-hour', 90]]);
    expect((await w.api.listRuns.execute(p, { limit: 100 })).runs).to.have.length(10);
  });

  it('refuses the 101st Starter run in an hour with the clock moved between minutes', async () => {
    const w = await makeWorld();
    const p = await w.principal('starter');
    for (let minute = 0; minute < 10; minute += 1) {
      w.clock.set(T0 + minute * 60_000);
      for (let i = 0; i < 10; i += 1) await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
    }
    w.clock.set(T0 + 10 * 60_000);
    const refused = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } }).catch((e: unknown) => e);
    expect(CoreError.hasCode(refused, 'RATE_LIMITED')).to.equal(true);
    expect((refused as CoreError).message).to.contain('100 runs per hour');
    expect((refused as CoreError).retryAfterSeconds).to.equal(50 * 60);
    w.clock.set(T0 + 3_600_000);
    await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
  });

  it('200 concurrent run requests from one Starter account admit exactly 10', async () => {
    const w = await makeWorld();
    const p = await w.principal('starter');
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, () => w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(10);
    expect((await w.api.listRuns.execute(p, { limit: 100 })).runs).to.have.length(10);
  });

  it('refuses runs with GPU_QUOTA_EXCEEDED once the month quota is charged, until the month ends', async () => {
    const w = await makeWorld({ limits: { tiers: { starter: { gpu_seconds_per_month: 100 } } } });
    const p = await w.principal('starter');
    await w.ports.gpuLedger.charge({ accountId: p.account.id, runId: 'r1', seconds: 100, chargedAt: w.clock.now() });
    const refused = await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } }).catch((e: unknown) => e);
    expect(CoreError.hasCode(refused, 'GPU_QUOTA_EXCEEDED')).to.equal(true);
    const monthEnd = Date.UTC(2026, 3, 1) / 1000;
    expect((refused as CoreError).retryAfterSeconds).to.equal(monthEnd - T0 / 1000);
    const view = await w.api.runAdmission.peek(p.account);
    expect(view.windows.map((s) => s.remaining)).to.deep.equal([10, 100]);
    w.clock.set(Date.UTC(2026, 3, 1));
    await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } });
  });
});
