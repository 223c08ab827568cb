/** One account's slow webhook receiver holds only its own deliveries, never another account's. */
import { expect } from 'chai';
import { WebhookWorker, type DeliveryOutcome } from '@runload/core';
import { InMemoryWebhookTransport, waitFor } from '@runload/core/testing';
import { makeWorld } from './fixture.js';

describe('webhook worker with a slow receiver', () => {
  it("delivers another account's event while a receiver has not answered yet, then the slow one when it answers", async () => {
    const w = await makeWorld();
    const transport = w.ports.webhookTransport as InMemoryWebhookTransport;
    let answerSlow: (outcome: DeliveryOutcome) => void = () => undefined;
    const deliver = transport.deliver.bind(transport);
    transport.deliver = async (event, secret) => {
      if (new URL(event.url).hostname !== 'slow.example.com') return deliver(event, secret);
      transport.sent.push({ event: structuredClone(event), secret });
      return new Promise<DeliveryOutcome>((resolve) => (answerSlow = resolve));
    };
    const worker = new WebhookWorker(
      { outbox: w.ports.webhookOutbox, transport, secrets: w.api.webhookSecrets, signal: w.ports.workSignal, clock: w.clock },
      { owner: 'test', pollMs: 3_600_000 },
    );
    const finished = async (principal: Awaited<ReturnType<typeof w.principal>>, webhook: string) => {
      const { run } = await w.api.createRun.execute({ principal, appVersionId: w.app.id, body: { inputs: {}, webhook } });
      await w.ports.runs.update(run.id, { status: 'running', startedAt: w.clock.now() });
      await w.ports.runs.update(run.id, { status: 'succeeded', finishedAt: w.clock.now() });
      return run;
    };
    const slowAccount = await w.principal('ultra');
    const otherAccount = await w.principal('plus');
    const slowRun = await finished(slowAccount, 'https://slow.example.com/hook');
    const pass = worker.wake();
    await waitFor(() => transport.sent.some((s) => s.event.runId === slowRun.id), 'the slow delivery to begin');

    const otherRun = await finished(otherAccount, 'https://fast.example.com/hook');
    void worker.wake();
    await waitFor(() => transport.sent.some((s) => s.event.runId === otherRun.id), "the other account's event to go out while the slow one waits");

    answerSlow({ delivered: true, status: 200 });
    await pass;
    expect(transport.sent.map((s) => new URL(s.event.url).hostname)).to.deep.equal(['slow.example.com', 'fast.example.com']);
  });
});
