/** Limits: headers on every response, the general limit, each tier's run limits, and concurrency. */
import { expect } from 'chai';
import { jsonInit, makeHarness, T0, TRANSPORTS, type Harness } from './harness.js';

const TIERS = [
  ['starter', 10, 100],
  ['plus', 20, 200],
  ['max', 30, 300],
  ['ultra', 90, 900],
] as const;

for (const transport of TRANSPORTS) {
  describe(`HTTP limits (${transport})`, function () {
    this.timeout(60_000);
    let h: Harness;
    beforeEach(async () => (h = await makeHarness(transport, { limits: { general_per_minute: 100_000 } })));
    afterEach(() => h.close());

    const createRun = (auth: Record<string, string>) => h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit({ inputs: {} }, auth));

    it('carries the minute headers on every response and the hour and GPU headers on run endpoints', async () => {
      await h.close();
      h = await makeHarness(transport);
      const u = await h.user();
      const account = await h.request('/api/v1/account', { headers: u.auth });
      expect(account.headers.get('x-ratelimit-minute-limit')).to.equal('120');
      expect(account.headers.get('x-ratelimit-minute-remaining')).to.equal('119');
      expect(account.headers.get('x-ratelimit-minute-reset')).to.equal(String((T0 + 60_000) / 1000));
      expect(account.headers.get('x-ratelimit-hour-limit')).to.equal(null);
      const created = await createRun(u.auth);
      expect(created.status).to.equal(201);
      // The run-minute window (9 left) has fewer remaining than the general one (118).
      expect(created.headers.get('x-ratelimit-minute-limit')).to.equal('10');
      expect(created.headers.get('x-ratelimit-minute-remaining')).to.equal('9');
      expect(created.headers.get('x-ratelimit-hour-limit')).to.equal('100');
      expect(created.headers.get('x-ratelimit-hour-remaining')).to.equal('99');
      expect(created.headers.get('x-ratelimit-hour-reset')).to.equal(String((T0 + 3_600_000) / 1000));
      expect(created.headers.get('x-gpu-quota-limit')).to.equal('3600');
      expect(created.headers.get('x-gpu-quota-remaining')).to.equal('3600');
      expect(created.headers.get('x-gpu-quota-reset')).to.equal(String(Date.UTC(2026, 3, 1) / 1000));
      const body = (await created.json()) as Record<string, string>;
      expect(Object.keys(body)).to.deep.equal(['run_id', 'status', 'created_at', 'poll_url']);
      expect(body['status']).to.equal('queued');
      expect(body['created_at']).to.equal(new Date(T0).toISOString());
      expect(body['poll_url']).to.equal(`/api/v1/runs/${body['run_id']}`);
      expect(created.headers.get('location')).to.equal(body['poll_url']);
    });

    it('refuses the 121st request in a minute with 429 RATE_LIMITED, and admits again at the next minute', async () => {
      await h.close();
      h = await makeHarness(transport);
      const u = await h.user();
      for (let i = 0; i < 120; i += 1) expect((await h.request('/api/v1/account', { headers: u.auth })).status).to.equal(200);
      h.clock.set(T0 + 45_000);
      const refused = await h.request('/api/v1/account', { headers: u.auth });
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('retry-after')).to.equal('15');
      expect(refused.headers.get('x-ratelimit-minute-remaining')).to.equal('0');
      expect(await refused.json()).to.deep.equal({ error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded: 120 requests per minute', retry_after: 15 } });
      h.clock.set(T0 + 60_000);
      expect((await h.request('/api/v1/account', { headers: u.auth })).status).to.equal(200);
    });

    for (const [tier, perMinute, perHour] of TIERS) {
      it(`${tier}: ${perMinute} runs a minute and ${perHour} an hour; refused runs count nothing`, async () => {
        const u = await h.user(tier);
        for (let i = 0; i < perMinute; i += 1) expect((await createRun(u.auth)).status).to.equal(201);
        const refused = await createRun(u.auth);
        expect(refused.status).to.equal(429);
        expect(refused.headers.get('retry-after')).to.equal('60');
        expect(await refused.json()).to.deep.equal({
          error: { code: 'RATE_LIMITED', message: `Rate limit exceeded: ${perMinute} runs per minute for the ${tier} tier`, retry_after: 60 },
        });
        expect(refused.headers.get('x-ratelimit-hour-remaining')).to.equal(String(perHour - perMinute));
        for (let minute = 1; minute < perHour / perMinute; minute += 1) {
          h.clock.set(T0 + minute * 60_000);
          for (let i = 0; i < perMinute; i += 1) expect((await createRun(u.auth)).status).to.equal(201);
        }
        h.clock.set(T0 + 59 * 60_000);
        const hourly = await createRun(u.auth);
        expect(hourly.status).to.equal(429);
        expect(hourly.headers.get('x-ratelimit-hour-remaining')).to.equal('0');
        expect(((await hourly.json()) as { error: { message: string } }).error.message).to.equal(
          `Rate limit exceeded: ${perHour} runs per hour for the ${tier} tier`,
        );
        h.clock.set(T0 + 3_600_000);
        expect((await createRun(u.auth)).status).to.equal(201);
      });
    }

    it('refuses a run with 429 GPU_QUOTA_EXCEEDED once the quota is spent, without retry_after in the body', async () => {
      const u = await h.user('starter');
      await h.ports.gpuLedger.charge({ accountId: u.accountId, runId: 'spent', seconds: 3600, chargedAt: h.clock.now() });
      const res = await createRun(u.auth);
      expect(res.status).to.equal(429);
      expect(res.headers.get('retry-after')).to.equal(String(Date.UTC(2026, 3, 1) / 1000 - T0 / 1000));
      expect(await res.json()).to.deep.equal({
        error: { code: 'GPU_QUOTA_EXCEEDED', message: 'GPU quota exceeded: 3600 GPU-seconds per month for the starter tier' },
      });
      expect(res.headers.get('x-gpu-quota-remaining')).to.equal('0');
      const account = (await (await h.request('/api/v1/account', { headers: u.auth })).json()) as Record<string, unknown>;
      expect(account).to.deep.include({ gpu_seconds_used: 3600, gpu_seconds_quota: 3600, tier: 'starter', quota_resets_at: '2026-04-01T00:00:00.000Z' });
    });

    it('admits exactly 10 of 200 concurrent Starter run requests and counts the refused ones nowhere', async () => {
      const u = await h.user('starter');
      const answers = await Promise.all(Array.from({ length: 200 }, () => createRun(u.auth)));
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).to.have.length(10);
      expect(statuses.filter((s) => s === 429)).to.have.length(190);
      const list = (await (await h.request('/api/v1/runs?limit=100', { headers: u.auth })).json()) as { runs: unknown[] };
      expect(list.runs).to.have.length(10);
      h.clock.set(T0 + 60_000);
      const next = await createRun(u.auth);
      expect(next.status).to.equal(201);
      expect(next.headers.get('x-ratelimit-hour-remaining')).to.equal('89');
    });
  });
}
