/**
 * The contract of RunRepository: what the dispatcher and the API rely on. Every adapter runs it.
 * @module
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { CoreError } from '../domain/errors.js';
import type { Workflow } from '../domain/app-version.js';
import { newQueuedRun, type Run, type RunToPlace } from '../domain/run.js';
import type { FreeBackend, RunRepository } from '../ports/run-repository.js';
import { describeConcurrentRunCalls } from './run-repository-concurrency.contract.js';
import { describeRunFailoverCalls } from './run-repository-failover.contract.js';

/**
 * Rows the storage contracts point at. Adapters that enforce foreign keys create these accounts
 * and app versions in their setup; the contracts never create them.
 */
export const STORAGE_CONTRACT_PARENTS = {
  accountIds: [
    '00000000-0000-4000-8000-00000000a001',
    '00000000-0000-4000-8000-00000000a002',
    '00000000-0000-4000-8000-00000000a003',
    '00000000-0000-4000-8000-00000000a004',
  ],
  appVersionIds: ['00000000-0000-4000-8000-00000000b001', '00000000-0000-4000-8000-00000000b002'],
  /** The versions' workflows, as the setup stores them: a claim places their runs with them. */
  appVersionWorkflows: {
    '00000000-0000-4000-8000-00000000b001': { '1': { class_type: 'CLIPTextEncode', inputs: { text: 'x', clip: ['4', 1] } } },
    '00000000-0000-4000-8000-00000000b002': { '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'out', images: ['8', 0] } } },
  } as Readonly<Record<string, Workflow>>,
} as const;

const [ACCOUNT, OTHER_ACCOUNT] = STORAGE_CONTRACT_PARENTS.accountIds;
const [VERSION, OTHER_VERSION] = STORAGE_CONTRACT_PARENTS.appVersionIds;
const T = Date.UTC(2026, 0, 1, 12, 0, 0, 123);
const MIN = 60_000;

/** A queued run of the first contract account and app version, created at `T` unless overridden. */
export function aContractRun(overrides: Partial<Run> = {}): Run {
  const base = newQueuedRun({
    id: randomUUID(),
    accountId: ACCOUNT,
    appVersionId: VERSION,
    createdAt: new Date(T),
    inputs: { '1:text': 'a cat', '2:seed': 42, '3:flag': true },
  });
  return { ...base, ...overrides };
}

/** A small seeded generator (mulberry32): the same queue on every adapter and every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` run ids in ascending order (for ties on createdAt). */
function sortedIds(n: number): string[] {
  return Array.from({ length: n }, () => randomUUID()).sort();
}

export function describeRunRepositoryContract(
  name: string,
  setup: () => Promise<{ subject: RunRepository; teardown?: () => Promise<void> }>,
): void {
  describe(`RunRepository contract: ${name}`, function () {
    let runs: RunRepository;
    let teardown: (() => Promise<void>) | undefined;
    const at = (minutes: number) => new Date(T + minutes * MIN);
    const queued = (minutes: number, extra: Partial<Run> = {}) => aContractRun({ createdAt: at(minutes), ...extra });
    const store = async (...list: Run[]) => {
      for (const r of list) await runs.create(r);
      return list;
    };

    beforeEach(async () => {
      const made = await setup();
      runs = made.subject;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    describeConcurrentRunCalls(() => runs, aContractRun, [ACCOUNT as string, OTHER_ACCOUNT as string]);
    describeRunFailoverCalls(() => runs, aContractRun);

    describe('create, get, update, delete', () => {
      it('returns null for an unknown id', async () => {
        expect(await runs.get(randomUUID())).to.equal(null);
      });

      it('round-trips a new queued run and a run with every field set, to the millisecond', async () => {
        const fresh = queued(0);
        const full = queued(1, {
          accountId: OTHER_ACCOUNT,
          appVersionId: OTHER_VERSION,
          status: 'failed',
          startedAt: new Date(T + 1001),
          finishedAt: new Date(T + 2999),
          progress: { value: 3, max: 20, nodeId: '7' },
          outputs: [
            { assetId: randomUUID(), filename: 'ComfyUI_00001_.png', contentType: 'image/png', size: 123_456, nodeId: '9' },
            { assetId: randomUUID(), filename: 'clip.mp4', contentType: 'video/mp4', size: 5_000_000_000, nodeId: '10' },
          ],
          error: { code: 'EXECUTION_ERROR', message: 'CUDA out of memory', nodeId: '3', nodeType: 'KSampler', details: { traceback: ['a', 'b'] } },
          metrics: { queueMs: 1001, runMs: 1998, gpuSeconds: 1.998 },
          backendId: 'http://gpu-1:8188',
          leaseOwner: 'dispatcher-1',
          leaseExpiresAt: new Date(T + 30_001),
          cancelRequested: true,
        });
        await store(fresh, full);
        expect(await runs.get(fresh.id)).to.deep.equal(fresh);
        expect(await runs.get(full.id)).to.deep.equal(full);
      });

      it('refuses a second run with the same id and keeps the first', async () => {
        const [run] = await store(queued(0));
        const error = await runs.create({ ...(run as Run), status: 'running' }).then(() => null, (e: unknown) => e);
        expect(error, 'a duplicate id is refused').to.not.equal(null);
        expect((await runs.get((run as Run).id))?.status).to.equal('queued');
      });

      it('applies a patch, returns the run as it now is and leaves other fields alone', async () => {
        const [run] = await store(queued(0, { leaseOwner: 'd1', leaseExpiresAt: at(1), progress: { value: 1, max: 2, nodeId: null } }));
        const r = run as Run;
        const patch = { status: 'running', startedAt: new Date(T + 7), backendId: 'b1', progress: null, leaseOwner: null, leaseExpiresAt: null } as const;
        const updated = await runs.update(r.id, patch);
        expect(updated).to.deep.equal({ ...r, ...patch });
        expect(await runs.get(r.id)).to.deep.equal({ ...r, ...patch });
      });

      it('changes nothing and returns null when the status guard fails', async () => {
        const [run] = await store(queued(0));
        const r = run as Run;
        expect(await runs.update(r.id, { status: 'succeeded', finishedAt: at(1) }, { status: ['running', 'canceling'] })).to.equal(null);
        expect(await runs.get(r.id)).to.deep.equal(r);
        expect((await runs.update(r.id, { status: 'running' }, { status: ['queued'] }))?.status).to.equal('running');
      });

      it('changes nothing and returns null when the lease guard fails', async () => {
        const [held, unheld] = await store(queued(0, { leaseOwner: 'd1', leaseExpiresAt: at(5) }), queued(1));
        expect(await runs.update((held as Run).id, { backendId: 'b1' }, { leaseOwner: 'd2' })).to.equal(null);
        expect(await runs.update((unheld as Run).id, { backendId: 'b1' }, { leaseOwner: 'd1' }), 'no lease is not my lease').to.equal(null);
        expect(await runs.get((held as Run).id)).to.deep.equal(held);
        expect(await runs.get((unheld as Run).id)).to.deep.equal(unheld);
        const ok = await runs.update((held as Run).id, { backendId: 'b1' }, { leaseOwner: 'd1', status: ['queued'] });
        expect(ok?.backendId).to.equal('b1');
      });

      it('with an empty patch, returns the run when the guard holds and null when it fails', async () => {
        const [run] = await store(queued(0));
        expect(await runs.update((run as Run).id, {}, { status: ['queued'] })).to.deep.equal(run);
        expect(await runs.update((run as Run).id, {}, { status: ['running'] })).to.equal(null);
      });

      it('returns null when updating an unknown run and does not create it', async () => {
        const id = randomUUID();
        expect(await runs.update(id, { status: 'running' })).to.equal(null);
        expect(await runs.get(id)).to.equal(null);
      });

      it('lets exactly one of many concurrent guarded updates win', async () => {
        const [run] = await store(queued(0));
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => runs.update((run as Run).id, { status: 'running', backendId: `b${i}` }, { status: ['queued'] })),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).to.have.length(1);
        expect((await runs.get((run as Run).id))?.backendId).to.equal(winners[0]?.backendId);
      });

      it('deletes a run once', async () => {
        const [run] = await store(queued(0));
        expect(await runs.delete((run as Run).id)).to.equal(true);
        expect(await runs.delete((run as Run).id)).to.equal(false);
        expect(await runs.get((run as Run).id)).to.equal(null);
      });
    });

    describe('listByAccount', () => {
      async function listAll(accountId: string, limit: number): Promise<{ ids: string[]; pages: number }> {
        const ids: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page: Awaited<ReturnType<RunRepository['listByAccount']>> = await runs.listByAccount(accountId, { limit, after: cursor });
          pages += 1;
          ids.push(...page.runs.map((r) => r.id));
          cursor = page.nextCursor;
          expect(pages, 'paging ends').to.be.below(50);
        } while (cursor);
        return { ids, pages };
      }

      it('pages newest first (ties by id, descending) without duplicates or gaps, and only the account’s runs', async () => {
        const ids = sortedIds(4);
        const made = await store(
          queued(0, { id: ids[0] as string }),
          queued(0, { id: ids[3] as string }),
          queued(0, { id: ids[1] as string }),
          queued(0, { id: ids[2] as string }),
          aContractRun({ createdAt: new Date(T + 1) }),
          aContractRun({ createdAt: new Date(T - 1) }),
          queued(2, { status: 'succeeded' }),
        );
        await store(queued(1, { accountId: OTHER_ACCOUNT }));
        const expected = [...made].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((r) => r.id);
        for (const limit of [1, 2, 3, 7, 100]) {
          const { ids: seen, pages } = await listAll(ACCOUNT, limit);
          expect(seen, `limit ${limit}`).to.deep.equal(expected);
          expect(pages, `no empty trailing page at limit ${limit}`).to.equal(Math.ceil(7 / limit));
        }
      });

      it('returns an empty last page for an account without runs', async () => {
        expect(await runs.listByAccount(OTHER_ACCOUNT, { limit: 10 })).to.deep.equal({ runs: [], nextCursor: null });
      });

      it('keeps a cursor stable when newer runs arrive between pages', async () => {
        await store(queued(0), queued(1), queued(2), queued(3));
        const first = await runs.listByAccount(ACCOUNT, { limit: 2 });
        await store(queued(10), queued(-10));
        const second = await runs.listByAccount(ACCOUNT, { limit: 2, after: first.nextCursor });
        expect(second.runs.map((r) => r.createdAt.getTime())).to.deep.equal([at(1).getTime(), at(0).getTime()]);
        const third = await runs.listByAccount(ACCOUNT, { limit: 2, after: second.nextCursor });
        expect(third.runs.map((r) => r.createdAt.getTime())).to.deep.equal([at(-10).getTime()]);
        expect(third.nextCursor).to.equal(null);
      });

      it('refuses a cursor it did not issue with INVALID_REQUEST', async () => {
        const error = await runs.listByAccount(ACCOUNT, { limit: 2, after: 'not-a-cursor' }).then(() => null, (e: unknown) => e);
        expect(CoreError.hasCode(error, 'INVALID_REQUEST'), String(error)).to.equal(true);
      });
    });

    describe('queue', () => {
      it('gives the place in the queue: the runs that start before it, by runs held per account, then age, then id', async () => {
        const ids = sortedIds(2);
        const [first, tieLow, tieHigh, , , last] = await store(
          queued(0),
          queued(1, { id: ids[0] as string }),
          queued(1, { id: ids[1] as string, accountId: OTHER_ACCOUNT }),
          // The other account holds one run on a backend: its waiting run ranks one lower.
          queued(2, { status: 'running', backendId: 'b', accountId: OTHER_ACCOUNT }),
          queued(3, { status: 'canceled' }),
          queued(4),
        );
        expect(await runs.queuePosition(first as Run)).to.equal(0);
        expect(await runs.queuePosition(tieLow as Run)).to.equal(1);
        expect(await runs.queuePosition(tieHigh as Run)).to.equal(2);
        expect(await runs.queuePosition(last as Run), 'running and canceled runs are not ahead').to.equal(3);
      });

      it('reads a run with its place in the queue at once: null once it left the queue, 0 once a backend holds it', async () => {
        const [first, running, canceled, placed, last] = await store(
          queued(0),
          queued(1, { status: 'running', backendId: 'b' }),
          queued(2, { status: 'canceled' }),
          queued(3, { backendId: 'b', leaseOwner: 'd1', leaseExpiresAt: at(100) }),
          queued(4),
        );
        // Asked together, as concurrent polls are: each gets its own run and place.
        const views = await Promise.all([first, running, canceled, placed, last].map((r) => runs.getWithQueuePosition((r as Run).id)));
        expect(views.map((v) => v?.queuePosition), 'the last waits behind the first only').to.deep.equal([0, null, null, 0, 1]);
        for (const [i, r] of [first, running, canceled, placed, last].entries()) expect(views[i]?.run).to.deep.equal(await runs.get((r as Run).id));
        expect(await runs.getWithQueuePosition('00000000-0000-4000-8000-00000000dead')).to.equal(null);
      });

      it('claims the oldest free queued run first, sets the lease and leaves it queued', async () => {
        const [newer, oldest, middle] = await store(queued(2), queued(0, { accountId: OTHER_ACCOUNT }), queued(1));
        const now = at(5);
        const until = new Date(now.getTime() + 30_000);
        const claimed = await runs.claimNextQueued('d1', until, now);
        expect(claimed).to.deep.equal({ ...(oldest as Run), leaseOwner: 'd1', leaseExpiresAt: until });
        expect(await runs.get((oldest as Run).id)).to.deep.equal(claimed);
        expect((await runs.claimNextQueued('d2', until, now))?.id).to.equal((middle as Run).id);
        expect((await runs.claimNextQueued('d1', until, now))?.id).to.equal((newer as Run).id);
        expect(await runs.claimNextQueued('d3', until, now)).to.equal(null);
      });

      it('records the backend named in the claim in the same write', async () => {
        const [run] = await store(queued(0));
        const claimed = await runs.claimNextQueued('d1', at(20), at(5), 'gpu-a');
        expect(claimed).to.deep.equal({ ...(run as Run), leaseOwner: 'd1', leaseExpiresAt: at(20), backendId: 'gpu-a' });
        expect(await runs.get((run as Run).id)).to.deep.equal(claimed);
        expect(await runs.claimNextQueued('d2', at(20), at(5), 'gpu-b'), 'a run sent to a backend is not claimed again').to.equal(null);
      });

      it('never claims a run with a backend, a live lease or a status other than queued', async () => {
        await store(
          queued(0, { backendId: 'b1' }),
          queued(1, { leaseOwner: 'other', leaseExpiresAt: at(10) }),
          queued(2, { status: 'running' }),
          queued(3, { status: 'canceled' }),
        );
        expect(await runs.claimNextQueued('d1', at(11), at(9))).to.equal(null);
      });

      it('claims a run whose lease has expired, from the expiry instant on', async () => {
        const [run] = await store(queued(0, { leaseOwner: 'dead', leaseExpiresAt: at(10) }));
        expect(await runs.claimNextQueued('d1', at(20), new Date(at(10).getTime() - 1)), '1 ms before expiry').to.equal(null);
        expect((await runs.get((run as Run).id))?.leaseOwner).to.equal('dead');
        const claimed = await runs.claimNextQueued('d1', at(20), at(10));
        expect(claimed?.leaseOwner).to.equal('d1');
        expect(claimed?.leaseExpiresAt?.getTime()).to.equal(at(20).getTime());
      });

      it('hands each of 20 queued runs to exactly one of 50 concurrent claimers', async () => {
        const made = await store(...Array.from({ length: 20 }, (_, i) => queued(i)));
        const now = at(100);
        const claims = await Promise.all(Array.from({ length: 50 }, (_, i) => runs.claimNextQueued(`d${i}`, at(200), now)));
        const got = claims.flatMap((r) => (r ? [r.id] : []));
        expect(got).to.have.length(20);
        expect(new Set(got)).to.deep.equal(new Set(made.map((r) => r.id)));
        for (const claim of claims) if (claim) expect((await runs.get(claim.id))?.leaseOwner).to.equal(claim.leaseOwner);
      });

      describe('claims with a slot on a backend', () => {
        const first = (_run: Run, free: readonly FreeBackend[]) => free[0]?.id ?? null;
        const claim = (owner: string, backends: readonly { id: string; capacity: number }[], place: (run: RunToPlace, free: readonly FreeBackend[]) => string | null = first, queuedSince = at(-1000)) =>
          runs.claimNext({ owner, leaseExpiresAt: at(200), now: at(100), queuedSince, backends, place });

        it('never places more runs on a backend than its capacity, counting the runs of every owner', async () => {
          await store(queued(0, { backendId: 'gpu-a', status: 'running', leaseOwner: 'elsewhere', leaseExpiresAt: at(300) }));
          await store(...Array.from({ length: 5 }, (_, i) => queued(1 + i)));
          const offers = [{ id: 'gpu-a', capacity: 2 }, { id: 'gpu-b', capacity: 1 }];
          const placed = [await claim('d1', offers), await claim('d2', offers), await claim('d3', offers)];
          expect(placed.map((r) => r?.backendId).slice(0, 2).sort()).to.deep.equal(['gpu-a', 'gpu-b']);
          expect(placed[2], 'both backends are full').to.equal(null);
          const claimed = placed[0] as Run;
          expect(await runs.get(claimed.id)).to.deep.equal(claimed);
          expect(claimed.leaseOwner).to.equal('d1');
        });

        it('fills backends to exactly their capacity under 30 concurrent claims', async () => {
          await store(...Array.from({ length: 12 }, (_, i) => queued(i)));
          const offers = [{ id: 'gpu-a', capacity: 3 }, { id: 'gpu-b', capacity: 2 }];
          const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => claim(`d${i}`, offers, (_run, free) => free[i % free.length]?.id ?? null)));
          const got = claims.flatMap((r) => (r ? [r] : []));
          expect(new Set(got.map((r) => r.id)).size).to.equal(got.length);
          const perBackend = (id: string) => got.filter((r) => r.backendId === id).length;
          expect({ a: perBackend('gpu-a'), b: perBackend('gpu-b') }).to.deep.equal({ a: 3, b: 2 });
        });

        it('gives the next slot to the account with the fewest runs on a backend, ties to the oldest run; queue positions follow', async () => {
          const many = await store(...Array.from({ length: 20 }, (_, i) => queued(i)));
          const [late] = await store(queued(30, { accountId: OTHER_ACCOUNT }));
          expect(await runs.queuePosition(late as Run), 'one run of the busy account goes first (older, tie on runs held)').to.equal(1);
          expect(await runs.queuePosition(many[1] as Run)).to.equal(2);
          expect(await runs.queuePosition(many[19] as Run)).to.equal(20);
          const offers = [{ id: 'gpu-a', capacity: 100 }];
          const order: string[] = [];
          for (let i = 0; i < 3; i += 1) order.push(((await claim('d1', offers)) as Run).id);
          expect(order).to.deep.equal([(many[0] as Run).id, (late as Run).id, (many[1] as Run).id]);
        });

        // Positions and claims are computed differently (per account counts, ordered candidates):
        // on queues of several accounts, some holding runs, with ties on age, they must agree.
        for (const seed of [1, 2, 3]) {
          it(`gives each waiting run the place at which claims take it (seeded queue ${seed})`, async () => {
            const random = seeded(seed);
            const accounts = STORAGE_CONTRACT_PARENTS.accountIds;
            const pick = () => accounts[Math.floor(random() * accounts.length)] as string;
            for (let i = 0; i < 6; i += 1) {
              await store(queued(-10, { accountId: pick(), status: 'running', backendId: `held-${i}`, leaseOwner: 'elsewhere', leaseExpiresAt: at(300) }));
            }
            // Whole minutes out of 8: many runs share their creation instant (ties go by id).
            const waiting = await store(...Array.from({ length: 30 }, () => queued(Math.floor(random() * 8), { accountId: pick() })));
            const positions = await Promise.all(waiting.map((r) => runs.queuePosition(r)));
            const polled = await Promise.all(waiting.map((r) => runs.getWithQueuePosition(r.id)));
            expect(polled.map((v) => v?.queuePosition), 'a poll shows the same places').to.deep.equal(positions);
            const offers = [{ id: 'gpu-a', capacity: 100 }];
            const taken: string[] = [];
            for (let claimed = await claim('d1', offers); claimed; claimed = await claim('d1', offers)) taken.push(claimed.id);
            expect(taken).to.have.length(waiting.length);
            const byPosition = waiting.map((r, i) => ({ id: r.id, at: positions[i] as number })).sort((a, b) => a.at - b.at);
            expect(byPosition.map((p) => p.at), 'positions are 0, 1, 2… without gaps or repeats').to.deep.equal(waiting.map((_, i) => i));
            expect(byPosition.map((p) => p.id)).to.deep.equal(taken);
          });
        }

        it('claims several runs in one call in the order single claims would take them, never past a backend\'s room', async () => {
          // Backend names of their own (backends are remembered across runs), in the order given.
          const pool = randomUUID();
          const [a, b] = [`${pool}-a`, `${pool}-b`];
          await store(queued(0, { backendId: a, status: 'running', leaseOwner: 'elsewhere', leaseExpiresAt: at(300) }));
          const busy = await store(...Array.from({ length: 6 }, (_, i) => queued(1 + i)));
          const [idle] = await store(queued(20, { accountId: OTHER_ACCOUNT }));
          const placed: string[] = [];
          const warmFirst = (run: Run, free: readonly FreeBackend[]) => {
            // Where the run's app version went last, else the first with room: what each call saw.
            const warm = free.find((b) => b.lastAppVersionId === run.appVersionId) ?? free[0];
            placed.push(`${warm?.id === a ? 'a' : 'b'}:${warm?.room}`);
            return warm?.id ?? null;
          };
          const offers = [{ id: a, capacity: 3 }, { id: b, capacity: 1 }];
          const got = await runs.claimMany({ owner: 'd1', leaseExpiresAt: at(200), now: at(100), queuedSince: at(-1000), backends: offers, place: warmFirst }, 10);
          // a holds one already: 2 + 1 slots. The busy account holds one, so after its oldest
          // run (a tie at one held each goes by age) the idle account's run comes next.
          expect(got.map((r) => r.id)).to.deep.equal([(idle as Run).id, (busy[0] as Run).id, (busy[1] as Run).id]);
          expect(got.map((r) => r.backendId)).to.deep.equal([a, a, b]);
          expect(placed, 'each placement sees the room and warmth the claims before it left').to.deep.equal(['a:2', 'a:1', 'b:1']);
          for (const r of got) expect(await runs.get(r.id)).to.deep.equal(r);
          expect(await runs.claimMany({ owner: 'd2', leaseExpiresAt: at(200), now: at(100), queuedSince: at(-1000), backends: offers, place: warmFirst }, 10), 'both backends are full').to.deep.equal([]);
        });

        it('lets the next run have the room of a run its claimer names as finished on the backend, and only that one', async () => {
          const gpu = `gpu-${randomUUID()}`;
          const [storing] = await store(
            queued(0, { backendId: gpu, status: 'running', leaseOwner: 'd1', leaseExpiresAt: at(300) }),
            queued(0, { backendId: gpu, status: 'running', leaseOwner: 'elsewhere', leaseExpiresAt: at(300) }),
          );
          const [next] = await store(queued(1));
          const offers = [{ id: gpu, capacity: 2 }];
          const request = (finishedOnBackend: string[]) => ({ owner: 'd1', leaseExpiresAt: at(200), now: at(100), queuedSince: at(-1000), backends: offers, place: first, finishedOnBackend });
          expect(await runs.claimNext(request([])), 'two runs hold both slots').to.equal(null);
          expect((await runs.claimNext(request([(storing as Run).id])))?.id, "its outputs are being stored: its slot is free").to.equal((next as Run).id);
          await store(queued(2));
          expect(await runs.claimNext(request([(storing as Run).id])), 'the other run still holds its slot').to.equal(null);
        });

        it('claims the first run a free backend can take however many runs before it none can (past 25 of them)', async () => {
          // The first 25 need a checkpoint no offered backend has: placement refuses them.
          await store(...Array.from({ length: 25 }, (_, i) => queued(i)));
          const [runnable] = await store(queued(30, { appVersionId: OTHER_VERSION }));
          const capable = (run: Run, free: readonly FreeBackend[]) => (run.appVersionId === OTHER_VERSION ? (free[0]?.id ?? null) : null);
          const claimed = await claim('d1', [{ id: 'gpu-a', capacity: 1 }], capable);
          expect(claimed?.id).to.equal((runnable as Run).id);
          expect(claimed?.backendId).to.equal('gpu-a');
          expect(await claim('d1', [{ id: 'gpu-b', capacity: 1 }], capable), 'nothing else is placeable').to.equal(null);
        });

        it("offers each run for placement with its app version's workflow, and claims it without one", async () => {
          const [one, other] = await store(queued(0), queued(1, { appVersionId: OTHER_VERSION }));
          const seen = new Map<string, Workflow>();
          const record = (run: RunToPlace, free: readonly FreeBackend[]) => {
            seen.set(run.id, run.workflow);
            return run.id === (other as Run).id ? (free[0]?.id ?? null) : null;
          };
          const claimed = await claim('d1', [{ id: 'gpu-a', capacity: 1 }], record);
          expect(claimed?.id).to.equal((other as Run).id);
          expect(seen.get((one as Run).id)).to.deep.equal(STORAGE_CONTRACT_PARENTS.appVersionWorkflows[VERSION]);
          expect(seen.get((other as Run).id)).to.deep.equal(STORAGE_CONTRACT_PARENTS.appVersionWorkflows[OTHER_VERSION]);
          expect(claimed, 'a claimed run is a run: its workflow stays with its version').to.not.have.property('workflow');
        });

        it('never claims a run past its queue time', async () => {
          const [, fresh] = await store(queued(0), queued(10));
          const offers = [{ id: 'gpu-a', capacity: 5 }];
          expect((await claim('d1', offers, first, at(5)))?.id).to.equal((fresh as Run).id);
          expect(await claim('d1', offers, first, at(5)), 'the older run waited past its queue time').to.equal(null);
        });

        it('passes by runs the placement refuses, and tells it the app version last placed on each backend', async () => {
          const [, other] = await store(queued(0), queued(1, { appVersionId: OTHER_VERSION }));
          const seen: FreeBackend[][] = [];
          const onlyOther = (run: Run, free: readonly FreeBackend[]) => {
            seen.push([...free]);
            return run.appVersionId === OTHER_VERSION ? (free[0]?.id ?? null) : null;
          };
          // A backend name of its own: backends are remembered across runs.
          const gpu = `gpu-${randomUUID()}`;
          const offers = [{ id: gpu, capacity: 2 }];
          expect((await claim('d1', offers, onlyOther))?.id).to.equal((other as Run).id);
          expect(seen[0]?.[0]).to.deep.equal({ id: gpu, room: 2, lastAppVersionId: null, lastPlacedAtMs: null });
          seen.length = 0;
          expect(await claim('d1', offers, onlyOther)).to.equal(null);
          expect(seen[0]?.[0]).to.deep.equal({ id: gpu, room: 1, lastAppVersionId: OTHER_VERSION, lastPlacedAtMs: at(100).getTime() });
        });

        it('takes nothing when none waits, and the waiting run, beside one already there, when one does', async () => {
          const backends = [{ id: `gpu-${randomUUID()}`, capacity: 2 }];
          const request = { owner: 'd1', leaseExpiresAt: at(200), now: at(100), queuedSince: at(-1000), backends, place: (_run: Run, free: readonly FreeBackend[]) => free[0]?.id ?? null };
          expect(await runs.claimMany(request, 2)).to.deep.equal([]);
          const [waiting] = await store(queued(0), queued(1, { status: 'running', backendId: backends[0]?.id ?? null }));
          expect((await runs.claimMany(request, 2)).map((r) => r.id)).to.deep.equal([(waiting as Run).id]);
        });

        it('notes the last of the app versions one claim placed on each backend, for the claims after it', async () => {
          await store(queued(0), queued(1, { appVersionId: OTHER_VERSION }), queued(2));
          const [warm, cold] = [`gpu-${randomUUID()}`, `gpu-${randomUUID()}`];
          const offers = [{ id: warm, capacity: 5 }, { id: cold, capacity: 5 }];
          // The first two runs go to one backend, the third to the other.
          let placed = 0;
          const got = await runs.claimMany({ owner: 'd1', leaseExpiresAt: at(200), now: at(100), queuedSince: at(-1000), backends: offers, place: () => (placed++ < 2 ? warm : cold) }, 3);
          expect(got.map((r) => r.backendId)).to.deep.equal([warm, warm, cold]);
          await store(queued(3));
          const seen: FreeBackend[] = [];
          await runs.claimMany({ owner: 'd2', leaseExpiresAt: at(300), now: at(150), queuedSince: at(-1000), backends: offers, place: (_run, free) => (seen.push(...free), null) }, 1);
          expect(seen.find((b) => b.id === warm)).to.deep.include({ lastAppVersionId: OTHER_VERSION, lastPlacedAtMs: at(100).getTime() });
          expect(seen.find((b) => b.id === cold)).to.deep.include({ lastAppVersionId: got[2]?.appVersionId, lastPlacedAtMs: at(100).getTime() });
        });
      });

      it('lists queued runs created strictly before a time, oldest first, up to the limit', async () => {
        const [a, b] = await store(queued(1), queued(0), queued(2), queued(0.5, { status: 'running' }), queued(3));
        expect((await runs.listQueuedBefore(at(2), 10)).map((r) => r.id)).to.deep.equal([(b as Run).id, (a as Run).id]);
        expect((await runs.listQueuedBefore(at(2), 1)).map((r) => r.id)).to.deep.equal([(b as Run).id]);
        expect(await runs.listQueuedBefore(at(0), 10)).to.deep.equal([]);
      });
    });

    describe('leases', () => {
      it('acquires a free or expired lease, renews its own, and refuses a live lease of another or a finished run', async () => {
        const [free, expired, live, mine, done] = await store(
          queued(0, { status: 'running', backendId: 'b' }),
          queued(1, { status: 'running', backendId: 'b', leaseOwner: 'dead', leaseExpiresAt: at(5) }),
          queued(2, { status: 'canceling', backendId: 'b', leaseOwner: 'other', leaseExpiresAt: at(60) }),
          queued(3, { status: 'running', backendId: 'b', leaseOwner: 'me', leaseExpiresAt: at(60) }),
          queued(4, { status: 'succeeded', backendId: 'b' }),
        );
        const now = at(5);
        const until = at(30);
        expect((await runs.acquireLease((free as Run).id, 'me', until, now))?.leaseOwner).to.equal('me');
        const taken = await runs.acquireLease((expired as Run).id, 'me', until, now);
        expect(taken).to.deep.equal({ ...(expired as Run), leaseOwner: 'me', leaseExpiresAt: until });
        expect(await runs.acquireLease((live as Run).id, 'me', until, now)).to.equal(null);
        expect(await runs.get((live as Run).id)).to.deep.equal(live);
        expect((await runs.acquireLease((mine as Run).id, 'me', until, now))?.leaseExpiresAt?.getTime()).to.equal(until.getTime());
        expect(await runs.acquireLease((done as Run).id, 'me', until, now)).to.equal(null);
        expect(await runs.acquireLease(randomUUID(), 'me', until, now)).to.equal(null);
      });

      it('lets one of many concurrent takeovers of an expired lease win', async () => {
        const [run] = await store(queued(0, { status: 'running', backendId: 'b', leaseOwner: 'dead', leaseExpiresAt: at(1) }));
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => runs.acquireLease((run as Run).id, `d${i}`, at(30), at(2))));
        const winners = results.filter((r) => r !== null);
        expect(winners).to.have.length(1);
        expect((await runs.get((run as Run).id))?.leaseOwner).to.equal(winners[0]?.leaseOwner);
      });

      it('lists orphans: unfinished runs on a backend whose lease is free, oldest first, up to the limit', async () => {
        const [o2, o1, , , , o3] = await store(
          queued(1, { status: 'running', backendId: 'b', leaseOwner: 'dead', leaseExpiresAt: at(2) }),
          queued(0, { status: 'canceling', backendId: 'b' }),
          queued(2, { status: 'running', backendId: 'b', leaseOwner: 'alive', leaseExpiresAt: at(60) }),
          queued(3, { status: 'succeeded', backendId: 'b' }),
          queued(4),
          queued(5, { backendId: 'b', leaseOwner: 'dead', leaseExpiresAt: at(10) }),
        );
        expect((await runs.listOrphaned(at(10), 10)).map((r) => r.id)).to.deep.equal([(o1 as Run).id, (o2 as Run).id, (o3 as Run).id]);
        expect((await runs.listOrphaned(at(10), 2)).map((r) => r.id)).to.deep.equal([(o1 as Run).id, (o2 as Run).id]);
      });

      it('renews only the owner’s unfinished leases on the runs it names and releases all of the owner’s leases', async () => {
        const [a, b, done, other, dropped] = await store(
          queued(0, { leaseOwner: 'me', leaseExpiresAt: at(1) }),
          queued(1, { status: 'running', backendId: 'b', leaseOwner: 'me', leaseExpiresAt: at(1) }),
          queued(2, { status: 'failed', leaseOwner: 'me', leaseExpiresAt: at(1) }),
          queued(3, { leaseOwner: 'other', leaseExpiresAt: at(1) }),
          queued(4, { status: 'running', backendId: 'b', leaseOwner: 'me', leaseExpiresAt: at(1) }),
        );
        const named = [a, b, done, other].map((r) => (r as Run).id);
        expect(await runs.renewLeases('me', at(9), named)).to.equal(2);
        expect((await runs.get((a as Run).id))?.leaseExpiresAt?.getTime()).to.equal(at(9).getTime());
        expect((await runs.get((b as Run).id))?.leaseExpiresAt?.getTime()).to.equal(at(9).getTime());
        expect(await runs.get((done as Run).id)).to.deep.equal(done);
        expect(await runs.get((dropped as Run).id), 'a run of the owner it does not name is not renewed').to.deep.equal(dropped);
        expect(await runs.renewLeases('me', at(9), []), 'naming none renews none').to.equal(0);
        expect(await runs.releaseLeases('me'), 'every lease it holds, finished runs included').to.equal(4);
        for (const r of [a, b, done, dropped]) {
          const now = await runs.get((r as Run).id);
          expect([now?.leaseOwner, now?.leaseExpiresAt]).to.deep.equal([null, null]);
        }
        expect(await runs.get((other as Run).id)).to.deep.equal(other);
        expect(await runs.renewLeases('me', at(9), named)).to.equal(0);
      });
    });

    describe('accounting', () => {
      it('counts the account’s unfinished runs only', async () => {
        await store(
          queued(0),
          queued(1, { status: 'running' }),
          queued(2, { status: 'canceling' }),
          ...(['succeeded', 'failed', 'canceled', 'expired'] as const).map((status, i) => queued(3 + i, { status })),
          queued(9, { accountId: OTHER_ACCOUNT }),
        );
        expect(await runs.countActive(ACCOUNT)).to.equal(3);
        expect(await runs.countActive(OTHER_ACCOUNT)).to.equal(1);
      });

      it('counts the runs an account created in a span of time, whatever became of them', async () => {
        await store(queued(0), queued(1, { status: 'succeeded' }), queued(2, { status: 'failed' }), queued(3), queued(2, { accountId: OTHER_ACCOUNT }));
        expect(await runs.countCreated(ACCOUNT, at(1), at(3)), 'from included, to excluded').to.equal(2);
        expect(await runs.countCreated(ACCOUNT, at(0), at(4))).to.equal(4);
        expect(await runs.countCreated(OTHER_ACCOUNT, at(0), at(4))).to.equal(1);
        expect(await runs.countCreated(ACCOUNT, at(4), at(60))).to.equal(0);
      });

      it('estimates GPU seconds in flight from each app version’s last 20 finished runs, whoever ran them', async () => {
        const finished = (minute: number, gpuSeconds: number, extra: Partial<Run> = {}) =>
          queued(minute, { status: 'succeeded', finishedAt: at(minute + 0.5), metrics: { queueMs: 1, runMs: 1, gpuSeconds }, ...extra });
        expect(await runs.estimateInFlightGpuSeconds(ACCOUNT), 'nothing in flight').to.equal(0);
        await store(...Array.from({ length: 5 }, (_, i) => finished(i, 1000)));
        await store(...Array.from({ length: 20 }, (_, i) => finished(10 + i, i % 2 === 0 ? 2 : 4, { accountId: i < 10 ? OTHER_ACCOUNT : ACCOUNT })));
        await store(queued(50, { status: 'failed', finishedAt: null, metrics: { queueMs: null, runMs: null, gpuSeconds: null } }));
        await store(queued(60), queued(61, { status: 'running' }), queued(62, { appVersionId: OTHER_VERSION }), queued(63, { accountId: OTHER_ACCOUNT }));
        expect(await runs.estimateInFlightGpuSeconds(ACCOUNT), 'two runs at mean 3, one of a version never finished').to.equal(6);
        expect(await runs.estimateInFlightGpuSeconds(OTHER_ACCOUNT)).to.equal(3);
      });

      it('estimates one run of each app version named as a run in flight counts, in the order named', async () => {
        const finished = (minute: number, gpuSeconds: number) =>
          queued(minute, { status: 'succeeded', finishedAt: at(minute + 0.5), metrics: { queueMs: 1, runMs: 1, gpuSeconds } });
        expect(await runs.estimateGpuSeconds([]), 'nothing asked').to.deep.equal([]);
        expect(await runs.estimateGpuSeconds([VERSION, OTHER_VERSION]), 'never finished').to.deep.equal([0, 0]);
        await store(...Array.from({ length: 5 }, (_, i) => finished(i, 1000)));
        await store(...Array.from({ length: 20 }, (_, i) => finished(10 + i, i % 2 === 0 ? 2 : 4)), queued(40), queued(41, { appVersionId: OTHER_VERSION }));
        expect(await runs.estimateGpuSeconds([OTHER_VERSION, VERSION, VERSION]), 'last 20 finished, mean 3; the other never finished').to.deep.equal([0, 3, 3]);
        expect(await runs.estimateGpuSeconds(['no-such-version']), 'no such version').to.deep.equal([0]);
        // What the estimate says a run will count is what the account's in-flight estimate counts for it.
        expect(await runs.estimateInFlightGpuSeconds(ACCOUNT)).to.equal(3);
      });

      it('follows runs in and out of flight: finished, canceled, requeued or deleted', async () => {
        const [known] = await store(queued(0, { status: 'succeeded', finishedAt: at(1), metrics: { queueMs: 1, runMs: 1, gpuSeconds: 5 } }));
        const [a, b, c] = await store(queued(2), queued(3), queued(4, { status: 'running' }));
        expect(await runs.estimateInFlightGpuSeconds(ACCOUNT), 'three in flight at mean 5').to.equal(15);
        await runs.update((a as Run).id, { status: 'running' });
        expect(await runs.estimateInFlightGpuSeconds(ACCOUNT), 'queued to running: still in flight').to.equal(15);
        await runs.update((a as Run).id, { status: 'failed', finishedAt: at(5) });
        await runs.update((b as Run).id, { status: 'canceled' });
        expect(await runs.estimateInFlightGpuSeconds(ACCOUNT), 'one left').to.equal(5);
        await runs.update((b as Run).id, { status: 'queued' });
        expect(await runs.estimateInFlightGpuSeconds(ACCOUNT), 'back in flight').to.equal(10);
        await runs.delete((c as Run).id);
        await runs.delete((known as Run).id);
        expect(await runs.estimateInFlightGpuSeconds(ACCOUNT), 'in flight, but no finished run to estimate from').to.equal(0);
        expect(await runs.countActive(ACCOUNT)).to.equal(1);
      });
    });
  });
}
