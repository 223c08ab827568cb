/** The contract of WebhookOutbox: events appear with the run change they report. */
import { expect } from 'chai';
import type { Run } from '../domain/run.js';
import type { WebhookEventType } from '../domain/webhook.js';
import type { RunRepository } from '../ports/run-repository.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import { aContractRun } from './run-repository.contract.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const at = (ms: number) => new Date(T + ms);
const URL_ = 'https://hooks.example.com/runload';

export function describeWebhookOutboxContract(
  name: string,
  setup: () => Promise<{ subject: WebhookOutbox; runs: RunRepository; teardown?: () => Promise<void> }>,
): void {
  describe(`WebhookOutbox contract: ${name}`, function () {
    let outbox: WebhookOutbox;
    let runs: RunRepository;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ subject: outbox, runs, teardown } = await setup());
    });
    afterEach(async () => teardown?.());

    const subscribed = async (events?: readonly WebhookEventType[]): Promise<Run> => {
      const run = aContractRun({ webhook: { url: URL_, events: events ?? ['run.succeeded', 'run.failed', 'run.canceled', 'run.expired'] } });
      await runs.create(run);
      return run;
    };
    const succeed = async (run: Run) => {
      await runs.update(run.id, { status: 'running', startedAt: at(1000) });
      return runs.update(run.id, { status: 'succeeded', finishedAt: at(2000), metrics: { queueMs: 1000, runMs: 1000, gpuSeconds: 1 } });
    };

    it('records the subscribed event of a status change, with the run as the change left it', async () => {
      const run = await subscribed();
      await succeed(run);
      const [event, ...rest] = await outbox.claimDue('a', at(3000), at(33_000), 10);
      expect(rest).to.have.length(0);
      expect(event).to.deep.include({ runId: run.id, accountId: run.accountId, type: 'run.succeeded', url: URL_, attempts: 0 });
      expect(event?.id).to.match(/^msg_/);
      expect(event?.occurredAt.getTime()).to.equal(T + 2000);
      expect(event?.run.status).to.equal('succeeded');
      expect(event?.run.metrics.gpuSeconds).to.equal(1);
      expect(event?.run.inputs).to.deep.equal(run.inputs);
    });

    it('records only the events a run subscribed to, and nothing for a run without a webhook', async () => {
      const started = await subscribed(['run.started']);
      await succeed(started);
      const plain = aContractRun();
      await runs.create(plain);
      await succeed(plain);
      const events = await outbox.claimDue('a', at(3000), at(33_000), 10);
      expect(events.map((e) => [e.runId, e.type, e.run.status])).to.deep.equal([[started.id, 'run.started', 'running']]);
    });

    it('reports run.started for a run that went from queued straight to its end after starting', async () => {
      const run = await subscribed(['run.started', 'run.succeeded']);
      await runs.update(run.id, { status: 'succeeded', startedAt: at(1000), finishedAt: at(2000) });
      const events = await outbox.claimDue('a', at(3000), at(33_000), 10);
      expect(events.map((e) => [e.type, e.occurredAt.getTime()]).sort()).to.deep.equal([
        ['run.started', T + 1000],
        ['run.succeeded', T + 2000],
      ]);
    });

    it('leases an event to one claimer until the lease ends', async () => {
      await succeed(await subscribed());
      const [a, b] = await Promise.all([outbox.claimDue('a', at(3000), at(33_000), 10), outbox.claimDue('b', at(3000), at(33_000), 10)]);
      expect((a?.length ?? 0) + (b?.length ?? 0)).to.equal(1);
      expect(await outbox.claimDue('c', at(32_000), at(62_000), 10)).to.have.length(0);
      expect(await outbox.claimDue('c', at(33_000), at(63_000), 10)).to.have.length(1);
    });

    it('frees the leases of an owner that restarted', async () => {
      await succeed(await subscribed());
      expect(await outbox.claimDue('a', at(3000), at(33_000), 10)).to.have.length(1);
      expect(await outbox.releaseLeases('a')).to.equal(1);
      expect(await outbox.claimDue('a', at(3001), at(33_001), 10)).to.have.length(1);
    });

    it('keeps a failed event for its next attempt and forgets a delivered one', async () => {
      const run = await subscribed();
      await succeed(run);
      const [event] = await outbox.claimDue('a', at(3000), at(33_000), 10);
      expect(await outbox.markFailed(event?.id as string, 'someone-else', 'x', at(8000), at(3000))).to.equal(false);
      expect(await outbox.markFailed(event?.id as string, 'a', 'HTTP 500', at(8000), at(3000))).to.equal(true);
      expect(await outbox.claimDue('a', at(7999), at(40_000), 10)).to.have.length(0);
      const [retry] = await outbox.claimDue('b', at(8000), at(40_000), 10);
      expect(retry?.id).to.equal(event?.id);
      expect(retry?.attempts).to.equal(1);
      expect(await outbox.markDelivered(retry?.id as string, 'b', at(8100))).to.equal(true);
      expect(await outbox.claimDue('a', at(100_000_000), at(100_030_000), 10)).to.have.length(0);
      expect(await outbox.listForRun(run.id)).to.deep.equal([
        { id: event?.id, type: 'run.succeeded', state: 'delivered', attempts: 2, nextAttemptAt: null, lastError: 'HTTP 500' },
      ]);
    });

    it('gives an event up when no attempt is left', async () => {
      const run = await subscribed();
      await succeed(run);
      const [event] = await outbox.claimDue('a', at(3000), at(33_000), 10);
      await outbox.markFailed(event?.id as string, 'a', 'connection refused', null, at(3000));
      expect(await outbox.claimDue('a', at(100_000_000), at(100_030_000), 10)).to.have.length(0);
      expect((await outbox.listForRun(run.id))[0]).to.deep.include({ state: 'failed', attempts: 1, lastError: 'connection refused' });
    });

    it('purges settled events (delivered or given up) that ended before a time, and never a pending one', async () => {
      const [delivered, givenUp, pending] = [await subscribed(), await subscribed(), await subscribed()];
      for (const r of [delivered, givenUp, pending]) await succeed(r);
      const events = await outbox.claimDue('a', at(3000), at(33_000), 10);
      const of = (r: Run) => events.find((e) => e.runId === r.id)?.id as string;
      await outbox.markDelivered(of(delivered), 'a', at(4000));
      await outbox.markFailed(of(givenUp), 'a', 'HTTP 500', null, at(5000));
      await outbox.markFailed(of(pending), 'a', 'HTTP 500', at(9000), at(5000));
      expect(await outbox.purgeSettled(at(4000))).to.equal(0);
      expect(await outbox.purgeSettled(at(4001))).to.equal(1);
      expect(await outbox.purgeSettled(at(1_000_000))).to.equal(1);
      expect(await outbox.listForRun(pending.id)).to.have.length(1);
      expect(await outbox.listForRun(delivered.id)).to.have.length(0);
    });
  });
}
