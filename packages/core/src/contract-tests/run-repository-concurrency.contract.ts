/**
 * Part of the RunRepository contract: many calls in flight at once (as under load, when an
 * adapter may serve them together) each get their own answer, and one failing call fails alone.
 * @module
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Run } from '../domain/run.js';
import type { RunRepository } from '../ports/run-repository.js';

export function describeConcurrentRunCalls(
  repository: () => RunRepository,
  aRun: (overrides?: Partial<Run>) => Run,
  accounts: readonly [string, string],
): void {
  describe('many calls at once', () => {
    it('answers concurrent gets, positions and estimates each with its own value', async () => {
      const runs = repository();
      const T = Date.UTC(2026, 0, 1, 12);
      const list = Array.from({ length: 12 }, (_, i) => aRun({ createdAt: new Date(T + i * 1000), accountId: accounts[i % 2] as string }));
      await Promise.all(list.map((r) => runs.create(r)));
      const missing = randomUUID();
      const got = await Promise.all([...list.map((r) => runs.get(r.id)), runs.get(missing), runs.get(list[3]?.id as string)]);
      expect(got.map((r) => r?.id ?? null)).to.deep.equal([...list.map((r) => r.id), null, list[3]?.id]);
      expect(got.map((r) => r?.accountId ?? null).slice(0, 12)).to.deep.equal(list.map((r) => r.accountId));
      const positions = await Promise.all([...list].reverse().map((r) => runs.queuePosition(r)));
      expect(positions).to.deep.equal([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      const estimates = await Promise.all([runs.estimateInFlightGpuSeconds(accounts[0]), runs.estimateInFlightGpuSeconds(accounts[1])]);
      expect(estimates).to.deep.equal([0, 0]);
    });

    it('fails only the create whose run already exists; the others are stored', async () => {
      const runs = repository();
      const existing = aRun();
      await runs.create(existing);
      const fresh = [aRun(), aRun()];
      const outcomes = await Promise.allSettled([runs.create(fresh[0] as Run), runs.create({ ...existing }), runs.create(fresh[1] as Run)]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
      expect((await runs.get(fresh[0]?.id as string))?.id).to.equal(fresh[0]?.id);
      expect((await runs.get(fresh[1]?.id as string))?.id).to.equal(fresh[1]?.id);
    });
  });
}
