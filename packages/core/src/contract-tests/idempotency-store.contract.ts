/** The contract of IdempotencyStore. Every adapter runs it. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { IdempotencyClaimRequest, IdempotencyHold, IdempotencyStore } from '../ports/idempotency-store.js';
import type { RunRepository } from '../ports/run-repository.js';
import { aContractRun, STORAGE_CONTRACT_PARENTS } from './run-repository.contract.js';

const [ACCOUNT, OTHER_ACCOUNT] = STORAGE_CONTRACT_PARENTS.accountIds;
const T = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const DAY = 24 * 3600_000;
const RESPONSE = { status: 201, body: { run_id: 'x', nested: { n: [1, 2] } }, headers: { Location: '/api/v1/runs/x' } };

export function describeIdempotencyStoreContract(
  name: string,
  setup: () => Promise<{ subject: IdempotencyStore; runs: RunRepository; teardown?: () => Promise<void> }>,
): void {
  describe(`IdempotencyStore contract: ${name}`, function () {
    let store: IdempotencyStore;
    let runs: RunRepository;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ subject: store, runs, teardown } = await setup());
    });
    afterEach(async () => teardown?.());

    const request = (over: Partial<IdempotencyClaimRequest> = {}): IdempotencyClaimRequest => ({
      accountId: ACCOUNT,
      key: 'key-1',
      fingerprint: 'f1',
      now: new Date(T),
      claimUntil: new Date(T + 60_000),
      expiresAt: new Date(T + DAY),
      ...over,
    });
    const claimed = async (over: Partial<IdempotencyClaimRequest> = {}): Promise<IdempotencyHold> => {
      const r = request(over);
      const c = await store.claim(r);
      if (c.outcome !== 'claimed') throw new Error(`expected a claim, got ${c.outcome}`);
      return { accountId: r.accountId, key: r.key, token: c.token };
    };

    it('gives a new key to its first request and reports it in flight to the next', async () => {
      await claimed();
      expect((await store.claim(request({ now: new Date(T + 1000) }))).outcome).to.equal('in-flight');
    });

    it('keeps the response of a completed key with its fingerprint', async () => {
      const hold = await claimed();
      expect(await store.complete(hold, RESPONSE)).to.equal(true);
      const again = await store.claim(request({ fingerprint: 'other' }));
      expect(again).to.deep.equal({ outcome: 'done', fingerprint: 'f1', response: RESPONSE });
    });

    it('scopes keys to the account', async () => {
      await claimed();
      expect((await store.claim(request({ accountId: OTHER_ACCOUNT as string }))).outcome).to.equal('claimed');
    });

    it('lets one of many concurrent claims of a key win', async () => {
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.claim(request())));
      expect(outcomes.filter((o) => o.outcome === 'claimed')).to.have.length(1);
      expect(outcomes.filter((o) => o.outcome === 'in-flight')).to.have.length(9);
    });

    it('frees a released key and a claim abandoned past its deadline', async () => {
      const hold = await claimed();
      await store.release(hold);
      await claimed({ now: new Date(T + 1) });
      expect((await store.claim(request({ now: new Date(T + 59_000) }))).outcome).to.equal('in-flight');
      expect((await store.claim(request({ now: new Date(T + 61_000), claimUntil: new Date(T + 121_000) }))).outcome).to.equal('claimed');
    });

    it('refuses to complete a claim that was taken over', async () => {
      const first = await claimed();
      await claimed({ now: new Date(T + 61_000), claimUntil: new Date(T + 121_000) });
      expect(await store.complete(first, RESPONSE)).to.equal(false);
    });

    it('writes the run and the response together, and neither when the claim was lost', async () => {
      const hold = await claimed();
      const run = aContractRun();
      await store.completeWithRun(hold, run, RESPONSE);
      expect((await runs.get(run.id))?.id).to.equal(run.id);
      expect(await store.claim(request())).to.deep.include({ outcome: 'done' });

      const lost = { accountId: ACCOUNT as string, key: 'never-claimed', token: randomUUID() };
      const orphan = aContractRun();
      let failed = false;
      await store.completeWithRun(lost, orphan, RESPONSE).catch(() => (failed = true));
      expect(failed).to.equal(true);
      expect(await runs.get(orphan.id)).to.equal(null);
    });

    it('forgets keys after they expire and purges them', async () => {
      const hold = await claimed();
      await store.complete(hold, RESPONSE);
      expect(await store.purgeExpired(new Date(T + DAY - 1))).to.equal(0);
      expect((await store.claim(request({ now: new Date(T + DAY - 1) }))).outcome).to.equal('done');
      expect((await store.claim(request({ now: new Date(T + DAY), claimUntil: new Date(T + DAY + 60_000), expiresAt: new Date(T + 2 * DAY) }))).outcome).to.equal('claimed');
      await claimed({ key: 'key-2' });
      expect(await store.purgeExpired(new Date(T + 3 * DAY))).to.equal(2);
      expect((await store.claim(request({ key: 'key-2', now: new Date(T + 3 * DAY) }))).outcome).to.equal('claimed');
    });
  });
}
