/** The contract of GpuLedger: the source of truth for GPU quota use. Every adapter runs it. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { GpuLedger } from '../ports/gpu-ledger.js';
import type { RunRepository } from '../ports/run-repository.js';
import { aContractRun, STORAGE_CONTRACT_PARENTS } from './run-repository.contract.js';

const [ACCOUNT, OTHER_ACCOUNT] = STORAGE_CONTRACT_PARENTS.accountIds;
const T = Date.UTC(2026, 1, 1);

export function describeGpuLedgerContract(
  name: string,
  /** `runs` is the run repository of the same storage: its finishing writes charge the ledger. */
  setup: () => Promise<{ subject: GpuLedger; runs: RunRepository; teardown?: () => Promise<void> }>,
): void {
  describe(`GpuLedger contract: ${name}`, () => {
    let ledger: GpuLedger;
    let runs: RunRepository;
    let teardown: (() => Promise<void>) | undefined;
    const charge = (seconds: number, atMs: number, accountId: string = ACCOUNT, runId: string = randomUUID()) =>
      ledger.charge({ accountId, runId, seconds, chargedAt: new Date(atMs) });
    beforeEach(async () => {
      const made = await setup();
      ledger = made.subject;
      runs = made.runs;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    it('uses 0 seconds when nothing was charged', async () => {
      expect(await ledger.usedSeconds(ACCOUNT, new Date(0), new Date(T * 2))).to.equal(0);
    });

    it('sums fractional charges of the account in [from, to), to the millisecond', async () => {
      await charge(1.5, T - 1);
      await charge(0.25, T);
      await charge(2.125, T + 999);
      await charge(100, T + 1000);
      await charge(7, T, OTHER_ACCOUNT);
      expect(await ledger.usedSeconds(ACCOUNT, new Date(T), new Date(T + 1000))).to.equal(2.375);
      expect(await ledger.usedSeconds(ACCOUNT, new Date(T - 1), new Date(T + 1001))).to.equal(103.875);
      expect(await ledger.usedSeconds(OTHER_ACCOUNT, new Date(T), new Date(T + 1000))).to.equal(7);
    });

    it('charges a run once: a second charge for it changes nothing', async () => {
      const runId = randomUUID();
      await charge(3, T, ACCOUNT, runId);
      await charge(50, T + 1, ACCOUNT, runId);
      expect(await ledger.usedSeconds(ACCOUNT, new Date(T), new Date(T + 10))).to.equal(3);
    });

    it('counts a run once when it is charged concurrently', async () => {
      const runId = randomUUID();
      await Promise.all(Array.from({ length: 10 }, () => charge(4, T, ACCOUNT, runId)));
      expect(await ledger.usedSeconds(ACCOUNT, new Date(T), new Date(T + 1))).to.equal(4);
    });

    it('answers concurrent asks for several accounts and periods each with its own sum', async () => {
      await charge(1, T);
      await charge(2, T + 500);
      await charge(4, T + 500, OTHER_ACCOUNT);
      const asks: [string, number, number][] = [
        [ACCOUNT, T, T + 1000],
        [OTHER_ACCOUNT, T, T + 1000],
        [ACCOUNT, T, T + 500],
        [ACCOUNT, T + 2000, T + 3000],
        [ACCOUNT, T, T + 1000],
      ];
      const sums = await Promise.all(asks.map(([account, from, to]) => ledger.usedSeconds(account, new Date(from), new Date(to))));
      expect(sums).to.deep.equal([3, 4, 1, 0, 3]);
    });

    it('sums calendar months (UTC), the periods run admission asks for, exactly at their edges', async () => {
      const jan = Date.UTC(2026, 0, 1);
      const feb = Date.UTC(2026, 1, 1);
      const mar = Date.UTC(2026, 2, 1);
      const duplicate = randomUUID();
      await charge(1.25, jan);
      await charge(2, feb - 1);
      await charge(4, feb, ACCOUNT, duplicate);
      await charge(99, feb + 5, ACCOUNT, duplicate);
      await charge(8, mar - 1);
      await charge(16, feb + 1, OTHER_ACCOUNT);
      const month = (from: number, to: number, account: string = ACCOUNT) => ledger.usedSeconds(account, new Date(from), new Date(to));
      expect(await month(jan, feb)).to.equal(3.25);
      expect(await month(feb, mar)).to.equal(12);
      expect(await month(feb, mar, OTHER_ACCOUNT)).to.equal(16);
      expect(await month(mar, Date.UTC(2026, 3, 1))).to.equal(0);
    });
    it("charges a run's GPU seconds in the write that finishes it, at its finish time, once", async () => {
      const used = (from: number, to: number) => ledger.usedSeconds(ACCOUNT, new Date(from), new Date(to));
      const succeeded = aContractRun({ status: 'running' });
      const canceled = aContractRun({ status: 'canceling' });
      await runs.create(succeeded);
      await runs.create(canceled);
      const metrics = (gpuSeconds: number) => ({ queueMs: 5, runMs: gpuSeconds * 1000, gpuSeconds });

      // A write that does not finish the run, GPU seconds named or not, charges nothing.
      await runs.update(succeeded.id, { metrics: metrics(9) });
      expect(await used(0, T * 2), 'before the run finished').to.equal(0);

      await runs.update(succeeded.id, { status: 'succeeded', finishedAt: new Date(T + 100), metrics: metrics(2.5) }, { status: ['running'] });
      await runs.update(canceled.id, { status: 'canceled', finishedAt: new Date(T + 2000), metrics: metrics(0.75) }, { status: ['canceling'] });
      expect(await used(T + 100, T + 101), 'charged at the finish time').to.equal(2.5);
      expect(await used(T, T + 3000)).to.equal(3.25);

      // The finished run written again, and a direct charge of it, change nothing.
      await runs.update(succeeded.id, { metrics: metrics(40), finishedAt: new Date(T + 200) });
      await charge(50, T + 100, ACCOUNT, succeeded.id);
      expect(await used(T, T + 3000)).to.equal(3.25);
    });

    it('charges nothing for a finishing write that finds the run moved on, nor for a finish without GPU seconds', async () => {
      const movedOn = aContractRun({ status: 'failed' });
      const expired = aContractRun();
      const lost = aContractRun({ status: 'running' });
      for (const run of [movedOn, expired, lost]) await runs.create(run);
      const finishedAt = new Date(T + 100);
      expect(await runs.update(movedOn.id, { status: 'succeeded', finishedAt, metrics: { queueMs: 1, runMs: 4000, gpuSeconds: 4 } }, { status: ['running'] })).to.equal(null);
      await runs.update(expired.id, { status: 'expired', finishedAt, metrics: { queueMs: null, runMs: null, gpuSeconds: null } }, { status: ['queued'] });
      await runs.update(lost.id, { status: 'failed', finishedAt, metrics: { queueMs: 1, runMs: 0, gpuSeconds: 0 } }, { status: ['running'] });
      expect(await ledger.usedSeconds(ACCOUNT, new Date(0), new Date(T * 2))).to.equal(0);
    });
  });
}
