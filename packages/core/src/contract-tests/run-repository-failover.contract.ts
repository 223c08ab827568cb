/**
 * Part of the RunRepository contract: what the pool needs of runs. Each claim counts an attempt;
 * a run failing over (started, lost by its backend, on no backend) is claimed only by a failover
 * claim, whatever its age; runs held per backend; the guard on a run being on no backend.
 * @module
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Run } from '../domain/run.js';
import type { FreeBackend, RunRepository } from '../ports/run-repository.js';

export function describeRunFailoverCalls(repository: () => RunRepository, aRun: (overrides?: Partial<Run>) => Run): void {
  describe('the pool: attempts, failover, runs held', () => {
    const T = Date.UTC(2026, 0, 1, 12);
    const at = (ms: number) => new Date(T + ms);
    const first = (_run: Run, free: readonly FreeBackend[]) => free[0]?.id ?? null;
    const request = (backend: string, failover: boolean) => ({ owner: 'd1', leaseExpiresAt: at(60_000), now: at(10_000), queuedSince: at(0), backends: [{ id: backend, capacity: 5 }], place: first, failover });

    it('counts an attempt at each claim and keeps the run labels it was created with', async () => {
      const runs = repository();
      const run = aRun({ createdAt: at(1000), requireLabels: { gpu: 'a100' } });
      await runs.create(run);
      expect((await runs.get(run.id))?.requireLabels).to.deep.equal({ gpu: 'a100' });
      const [claimed] = await runs.claimMany(request(`gpu-${randomUUID()}`, false), 1);
      expect(claimed?.attempts).to.equal(1);
      expect(await runs.update(run.id, { backendId: null, leaseOwner: null, leaseExpiresAt: null, attempts: 0 })).to.deep.include({ attempts: 0 });
    });

    it('claims a run failing over only in a failover claim, whatever its age, and never a queued one there', async () => {
      const runs = repository();
      const backend = `gpu-${randomUUID()}`;
      // Created long before the queue time allows: a queued run this old is never claimed.
      const lost = aRun({ createdAt: at(-3_600_000), status: 'running', startedAt: at(-3_000_000), attempts: 1 });
      const queued = aRun({ createdAt: at(2000) });
      await runs.create(lost);
      await runs.create(queued);
      expect((await runs.listFailingOver(10)).map((r) => r.id)).to.deep.equal([lost.id]);
      const failover = await runs.claimMany(request(backend, true), 5);
      expect(failover.map((r) => [r.id, r.status, r.backendId, r.attempts])).to.deep.equal([[lost.id, 'running', backend, 2]]);
      expect(await runs.listFailingOver(10)).to.deep.equal([]);
      expect((await runs.claimMany(request(backend, false), 5)).map((r) => r.id)).to.deep.equal([queued.id]);
    });

    it('counts the runs each backend holds, finished ones not', async () => {
      const runs = repository();
      const [a, b] = [`gpu-${randomUUID()}`, `gpu-${randomUUID()}`];
      for (const run of [
        aRun({ backendId: a }),
        aRun({ backendId: a, status: 'running' }),
        aRun({ backendId: b, status: 'canceling' }),
        aRun({ backendId: b, status: 'succeeded' }),
        aRun(),
      ]) {
        await runs.create(run);
      }
      const held = await runs.heldByBackend();
      expect([held.get(a), held.get(b)]).to.deep.equal([2, 1]);
    });

    it('counts a run claimed to wait for room in every claim, but as held on its backend only once its prompt is sent', async () => {
      const runs = repository();
      const gpu = `gpu-${randomUUID()}`;
      const [current, next, other] = [aRun({ createdAt: at(1000) }), aRun({ createdAt: at(2000) }), aRun({ createdAt: at(3000) })];
      for (const run of [current, next, other]) await runs.create(run);
      const offer = (capacity: number, waitsForRoom: boolean) => ({ ...request(gpu, false), backends: [{ id: gpu, capacity, waitsForRoom }] });
      expect((await runs.claimMany(offer(1, false), 5)).map((r) => r.id)).to.deep.equal([current.id]);
      // The claimer whose run fills the backend is offered one slot more: the next run waits there.
      expect((await runs.claimMany(offer(2, true), 5)).map((r) => [r.id, r.backendId])).to.deep.equal([[next.id, gpu]]);
      expect((await runs.heldByBackend()).get(gpu), 'held: the prompt on the backend, not the one waiting').to.equal(1);
      // It takes its slot in every claim: the backend is full, for a waiting run too.
      expect(await runs.claimMany(offer(1, false), 5)).to.deep.equal([]);
      expect(await runs.claimMany(offer(2, true), 5)).to.deep.equal([]);
      expect(await runs.leaveWaiting(next.id, 'someone-else', at(90_000)), 'another owner').to.equal(false);
      expect(await runs.leaveWaiting(current.id, 'd1', at(90_000)), 'a run that never waited').to.equal(false);
      expect(await runs.leaveWaiting(next.id, 'd1', at(90_000))).to.equal(true);
      expect((await runs.get(next.id))?.leaseExpiresAt?.getTime(), 'its lease renewed').to.equal(at(90_000).getTime());
      expect((await runs.heldByBackend()).get(gpu)).to.equal(2);
      expect(await runs.leaveWaiting(next.id, 'd1', at(90_000)), 'once only').to.equal(false);
      // Claimed again the usual way after going back to the queue, it is held as any run.
      await runs.update(next.id, { backendId: null, leaseOwner: null, leaseExpiresAt: null });
      await runs.update(current.id, { status: 'succeeded', finishedAt: at(5000) });
      await runs.update(other.id, { status: 'canceled', finishedAt: at(5000) });
      const waiting = await runs.claimMany(offer(2, true), 5);
      expect(waiting.map((r) => r.id)).to.deep.equal([next.id]);
      expect((await runs.heldByBackend()).get(gpu)).to.equal(undefined);
      await runs.update(next.id, { backendId: null, leaseOwner: null, leaseExpiresAt: null });
      await runs.claimMany(offer(1, false), 5);
      expect((await runs.heldByBackend()).get(gpu)).to.equal(1);
    });

    it('updates with the guard "waiting for room" only a run that waits, and a run canceled so never leaves waiting', async () => {
      const runs = repository();
      const gpu = `gpu-${randomUUID()}`;
      const [current, next] = [aRun({ createdAt: at(1000) }), aRun({ createdAt: at(2000) })];
      for (const run of [current, next]) await runs.create(run);
      const offer = (capacity: number, waitsForRoom: boolean) => ({ ...request(gpu, false), backends: [{ id: gpu, capacity, waitsForRoom }] });
      await runs.claimMany(offer(1, false), 5);
      await runs.claimMany(offer(2, true), 5);
      expect(await runs.update(current.id, { status: 'canceled' }, { status: ['queued'], waitingForRoom: true }), 'not waiting').to.equal(null);
      expect(await runs.update(next.id, { status: 'canceled' }, { status: ['queued'], waitingForRoom: true })).to.deep.include({ status: 'canceled' });
      expect(await runs.leaveWaiting(next.id, 'd1', at(90_000))).to.equal(false);
    });

    it('tells what each backend did: runs that ended there, their GPU-seconds, the version placed there last', async () => {
      const runs = repository();
      const gpu = `gpu-${randomUUID()}`;
      const ended = (gpuSeconds: number | null, status: Run['status'] = 'succeeded') => aRun({ backendId: gpu, status, finishedAt: at(5000), metrics: { queueMs: 1, runMs: 1, gpuSeconds } });
      for (const run of [ended(2), ended(3.5, 'failed'), ended(null, 'canceled'), aRun({ backendId: gpu, status: 'running' })]) await runs.create(run);
      expect((await runs.backendUsage()).get(gpu)).to.deep.include({ runsExecuted: 3, gpuSeconds: 5.5 });
      const next = aRun({ createdAt: at(1000) });
      await runs.create(next);
      await runs.claimMany(request(`${gpu}-2`, false), 1);
      expect((await runs.backendUsage()).get(`${gpu}-2`)).to.deep.equal({ runsExecuted: 0, gpuSeconds: 0, lastAppVersionId: next.appVersionId });
    });

    it('counts a run for its backend when it ends there, and no more once it is deleted or moved', async () => {
      const runs = repository();
      const gpu = `gpu-${randomUUID()}`;
      const usage = async (id: string) => (await runs.backendUsage()).get(id) ?? { runsExecuted: 0, gpuSeconds: 0 };
      const [first, second, third] = [aRun({ backendId: gpu, status: 'running' }), aRun({ backendId: gpu, status: 'running' }), aRun({ backendId: gpu, status: 'running' })];
      for (const run of [first, second, third]) await runs.create(run);
      expect(await usage(gpu)).to.deep.include({ runsExecuted: 0, gpuSeconds: 0 });
      const end = (status: Run['status'], gpuSeconds: number) => ({ status, finishedAt: at(6000), metrics: { queueMs: 1, runMs: 1, gpuSeconds } });
      await runs.update(first.id, end('succeeded', 1.5));
      await runs.update(second.id, end('failed', 0.25));
      expect(await usage(gpu)).to.deep.include({ runsExecuted: 2, gpuSeconds: 1.75 });
      expect(await runs.delete(second.id)).to.equal(true);
      expect(await usage(gpu)).to.deep.include({ runsExecuted: 1, gpuSeconds: 1.5 });
      await runs.update(first.id, { backendId: `${gpu}-2` });
      expect(await usage(gpu)).to.deep.include({ runsExecuted: 0, gpuSeconds: 0 });
      expect(await usage(`${gpu}-2`)).to.deep.include({ runsExecuted: 1, gpuSeconds: 1.5 });
      await runs.update(third.id, { backendId: null });
      await runs.update(third.id, { ...end('succeeded', 2), backendId: `${gpu}-2` });
      expect(await usage(`${gpu}-2`)).to.deep.include({ runsExecuted: 2, gpuSeconds: 3.5 });
    });

    it('updates with the guard "on no backend" only a run on none', async () => {
      const runs = repository();
      const placed = aRun({ status: 'running', backendId: 'gpu-x' });
      const waiting = aRun({ status: 'running' });
      await runs.create(placed);
      await runs.create(waiting);
      expect(await runs.update(placed.id, { status: 'canceled' }, { status: ['running'], unplaced: true })).to.equal(null);
      expect(await runs.update(waiting.id, { status: 'canceled' }, { status: ['running'], unplaced: true })).to.deep.include({ status: 'canceled' });
    });
  });
}
