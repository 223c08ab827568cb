/** A limits file: what it may set, and the values and misspellings it is refused for. */
import { expect } from 'chai';
import { DEFAULT_LIMITS, mergeLimits } from '@runload/core';

const refusal = (partial: unknown) => {
  try {
    mergeLimits(partial);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
};

describe('limits file', () => {
  it('overlays the fields it sets on the defaults', () => {
    const merged = mergeLimits({ max_queue_seconds: 60, tiers: { plus: { runs_per_hour: 5 } }, retention: { outputs_days: null } });
    expect(merged.max_queue_seconds).to.equal(60);
    expect(merged.tiers.plus).to.deep.equal({ ...DEFAULT_LIMITS.tiers.plus, runs_per_hour: 5 });
    expect(merged.tiers.starter).to.deep.equal(DEFAULT_LIMITS.tiers.starter);
    expect(merged.retention).to.deep.equal({ uploads_days: 7, outputs_days: null });
  });

  it('takes a per-tier switch for submitted workflows: a boolean, true by default', () => {
    const merged = mergeLimits({ tiers: { starter: { workflows: false } } });
    expect(merged.tiers['starter']?.workflows).to.equal(false);
    expect(merged.tiers['plus']?.workflows).to.equal(true);
    expect(refusal({ tiers: { starter: { workflows: 'no' } } })).to.equal('limits: tiers.starter.workflows must be true or false');
  });

  it('refuses a misspelt field, tier or retention field rather than keep its default silently', () => {
    expect(refusal({ max_queue_second: 60 })).to.equal(
      'limits: unknown field "max_queue_second" (known: general_per_minute, auth_failures_per_minute, max_queue_seconds, max_run_seconds, tiers, retention, max_attempts)',
    );
    expect(refusal({ tiers: { gold: { runs_per_hour: 5 } } })).to.equal('limits: tiers.gold is a new tier and needs runs_per_minute, gpu_seconds_per_month');
    expect(refusal({ tiers: { plus: { runs_per_hours: 5 } } })).to.equal(
      'limits: unknown field in tiers.plus: "runs_per_hours" (known: runs_per_minute, runs_per_hour, gpu_seconds_per_month, workflows)',
    );
    expect(refusal({ retention: { output_days: 1 } })).to.equal('limits: unknown field in retention: "output_days" (known: uploads_days, outputs_days)');
  });

  it('refuses queue and run times over a year, and retention over 36,500 days, which time arithmetic cannot honour', () => {
    expect(refusal({ max_queue_seconds: 1e308 })).to.equal('limits: max_queue_seconds must be at most 31536000');
    expect(refusal({ max_run_seconds: 31_536_001 })).to.equal('limits: max_run_seconds must be at most 31536000');
    expect(refusal({ max_queue_seconds: 31_536_000 })).to.equal(null);
    expect(refusal({ retention: { uploads_days: 1e308 } })).to.equal('limits: retention.uploads_days must be a positive number of days up to 36500, or null');
    expect(refusal({ tiers: { plus: [] } })).to.equal('limits: tiers.plus must be an object');
  });

  it('adds a tier with a lower-case name and all three numbers, and takes a per-tier workflows switch', () => {
    const enterprise = { runs_per_minute: 300, runs_per_hour: 5000, gpu_seconds_per_month: 1_000_000 };
    const merged = mergeLimits({ tiers: { enterprise, starter: { workflows: false } } });
    expect(merged.tiers['enterprise']).to.deep.equal({ ...enterprise, workflows: true });
    expect(merged.tiers['starter']).to.deep.equal({ ...DEFAULT_LIMITS.tiers['starter'], workflows: false });
    expect(Object.keys(merged.tiers)).to.deep.equal(['starter', 'plus', 'max', 'ultra', 'enterprise']);
    expect(refusal({ tiers: { Enterprise: enterprise } })).to.match(/tier name "Enterprise" must be lower case/);
    expect(refusal({ tiers: { gold: { ...enterprise, workflows: 'no' } } })).to.equal('limits: tiers.gold.workflows must be true or false');
  });
});
