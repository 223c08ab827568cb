/** The webhook worker on the in-memory ports: one id per event, retries on the injected schedule, then given up. */
import { expect } from 'chai';
import { afterAttempt, RunLifecycle, WEBHOOK_RETRY_DELAYS_MS, WebhookWorker } from '@runload/core';
import { InMemoryWebhookTransport } from '@runload/core/testing';
import { codeOf, makeWorld } from './fixture.js';

async function world() {
  const w = await makeWorld();
  const transport = w.ports.webhookTransport as InMemoryWebhookTransport;
  const outcomes: string[] = [];
  const worker = new WebhookWorker(
    { outbox: w.ports.webhookOutbox, transport, secrets: w.api.webhookSecrets, signal: w.ports.workSignal, clock: w.clock },
    { owner: 'test', retryDelaysMs: [1000, 5000], pollMs: 3_600_000, onAttempt: (o) => outcomes.push(o) },
  );
  const user = await w.principal('ultra');
  const finished = async (webhook: Record<string, unknown>) => {
    const { run } = await w.api.createRun.execute({ principal: user, appVersionId: w.app.id, body: { inputs: {}, ...webhook } });
    await w.ports.runs.update(run.id, { status: 'running', startedAt: w.clock.now() });
    await w.ports.runs.update(run.id, { status: 'succeeded', finishedAt: w.clock.now() });
    return run;
  };
  return { ...w, transport, worker, user, finished, outcomes };
}

describe('webhook worker', () => {
  it('keeps the documented retry schedule by default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h', () => {
    expect(WEBHOOK_RETRY_DELAYS_MS).to.deep.equal([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000]);
  });

  it('moves a delivery from attempt to attempt: delivered, retried after its delay, given up after the last', () => {
    const failed = { delivered: false as const, error: 'HTTP 500' };
    expect(afterAttempt(1, { delivered: true }, 0)).to.deep.equal({ kind: 'delivered' });
    expect(afterAttempt(1, failed, 1000)).to.deep.equal({ kind: 'retry', at: new Date(6000), error: 'HTTP 500' });
    expect(afterAttempt(6, failed, 0)).to.deep.equal({ kind: 'retry', at: new Date(36_000_000), error: 'HTTP 500' });
    expect(afterAttempt(7, failed, 0)).to.deep.equal({ kind: 'given-up', error: 'HTTP 500' });
    expect(afterAttempt(2, failed, 0, [10, 20])).to.deep.equal({ kind: 'retry', at: new Date(20), error: 'HTTP 500' });
    expect(afterAttempt(3, failed, 0, [10, 20])).to.deep.equal({ kind: 'given-up', error: 'HTTP 500' });
  });

  it('sends each subscribed event once, signed with the account secret', async () => {
    const w = await world();
    const run = await w.finished({ webhook: 'https://hooks.example.com/x', webhook_events: ['run.started', 'run.succeeded'] });
    await w.worker.wake();
    expect(w.transport.sent.map((s) => [s.event.type, s.event.runId])).to.deep.equal([
      ['run.started', run.id],
      ['run.succeeded', run.id],
    ]);
    expect(w.transport.sent[0]?.secret).to.equal(await w.api.webhookSecrets.secretOf(w.user.account.id));
    expect(w.transport.sent[0]?.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await w.worker.wake();
    expect(w.transport.sent).to.have.length(2);
  });

  it('looks at the outbox when a run with a webhook changes, not when a run is queued or one without a webhook ends', async () => {
    const w = await world();
    const lifecycle = new RunLifecycle(w.ports.runs, w.ports.assets, w.ports.blobs, w.ports.workSignal, w.clock);
    let looks = 0;
    const claimDue = w.ports.webhookOutbox.claimDue.bind(w.ports.webhookOutbox);
    w.ports.webhookOutbox.claimDue = (...args) => ((looks += 1), claimDue(...args));
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    const create = async (body: Record<string, unknown>) => (await w.api.createRun.execute({ principal: w.user, appVersionId: w.app.id, body: { inputs: {}, ...body } })).run;
    const failure = { code: 'VALIDATION_ERROR' as const, message: 'no', nodeId: null, nodeType: null };
    await w.worker.start();
    await settled();
    const before = looks;
    const plain = await create({});
    const hooked = await create({ webhook: 'https://hooks.example.com/x' });
    await lifecycle.failed(plain, failure, null);
    await settled();
    expect(looks - before, 'two runs queued and one without a webhook failed: nothing to look for').to.equal(0);
    await lifecycle.failed(hooked, failure, null);
    await settled();
    const afterFailure = looks;
    expect(afterFailure - before, 'the run with a webhook failed').to.be.greaterThan(0);
    const canceled = await create({ webhook: 'https://hooks.example.com/y' });
    await w.api.cancelRun.execute(w.user, canceled.id);
    await settled();
    await w.worker.stop();
    expect(looks - afterFailure, 'a cancel').to.be.greaterThan(0);
    expect(w.transport.sent.map((s) => [s.event.type, s.event.runId])).to.deep.equal([
      ['run.failed', hooked.id],
      ['run.canceled', canceled.id],
    ]);
  });

  it('retries a failed attempt on the schedule with the same id, then gives it up', async () => {
    const w = await world();
    const run = await w.finished({ webhook: 'https://hooks.example.com/x' });
    w.transport.script.push(...[1, 2, 3].map(() => ({ delivered: false as const, status: 500, error: 'HTTP 500' })));
    await w.worker.wake();
    w.clock.advance(999);
    await w.worker.wake();
    expect(w.transport.sent).to.have.length(1);
    w.clock.advance(1);
    await w.worker.wake();
    w.clock.advance(5000);
    await w.worker.wake();
    w.clock.advance(3_600_000);
    await w.worker.wake();
    expect(w.transport.sent.map((s) => s.event.id)).to.deep.equal(Array(3).fill(w.transport.sent[0]?.event.id));
    expect(w.outcomes).to.deep.equal(['retry', 'retry', 'given-up']);
    expect(await w.ports.webhookOutbox.listForRun(run.id)).to.deep.equal([
      { id: w.transport.sent[0]?.event.id, type: 'run.succeeded', state: 'failed', attempts: 3, nextAttemptAt: null, lastError: 'HTTP 500' },
    ]);
  });

  it('refuses a webhook at creation that is not http(s), carries credentials, names localhost or lists an unknown event', async () => {
    const w = await world();
    for (const body of [
      { webhook: 'ftp://hooks.example.com/x' },
      { webhook: 'https://user:pw@hooks.example.com/x' },
      { webhook: 'http://localhost:9000/x' },
      { webhook: 'https://hooks.example.com/x', webhook_events: ['run.finished'] },
      { webhook: 'https://hooks.example.com/x', webhook_events: [] },
      { webhook_events: ['run.succeeded'] },
    ]) {
      expect(await codeOf(w.api.createRun.execute({ principal: w.user, appVersionId: w.app.id, body: { inputs: {}, ...body } })), JSON.stringify(body)).to.equal('INVALID_WEBHOOK');
    }
    expect((await w.ports.runs.listByAccount(w.user.account.id, { limit: 10 })).runs).to.have.length(0);
  });
});
