/** Claims across instances: several connection pools on one database never hand a run out twice. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { newQueuedRun, placeRun, type Run } from '@runload/core';
import { waitFor } from '@runload/core/testing';
import { KnexAccountRepository, KnexAppVersionRepository, KnexRunRepository } from '@runload/storage-adapter';
import { seedAccountAndApp, TEST_DATABASES, useDatabase } from './databases.js';

const T = Date.UTC(2026, 0, 1);

for (const [name, open] of TEST_DATABASES) {
  describe(`claims on ${name} from several instances`, function () {
    const database = useDatabase(open);

    it('hands 20 queued runs to 50 concurrent claimers on three connection pools, each exactly once', async () => {
      const t = database.get();
      const db = t.db;
      const { accountId, appVersionId } = await seedAccountAndApp(db);
      const made = Array.from({ length: 20 }, (_, i) => newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T + i), inputs: {} }));
      for (const r of made) await new KnexRunRepository(db).create(r);
      const pools = [db, t.another(), t.another()].map((d) => new KnexRunRepository(d));
      const now = new Date(T + 60_000);
      const claims = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (pools[i % 3] as KnexRunRepository).claimNextQueued(`instance-${i % 3}/d${i}`, new Date(T + 120_000), now)),
      );
      const got = claims.flatMap((c) => (c ? [c.id] : []));
      expect(got).to.have.length(20);
      expect(new Set(got)).to.deep.equal(new Set(made.map((r) => r.id)));
      for (const c of claims) if (c) expect((await (pools[2] as KnexRunRepository).get(c.id))?.leaseOwner, 'every pool sees the claim').to.equal(c.leaseOwner);
    });

    it('answers at once, taking no lock, when no run is waiting, while another instance holds the claim lock', async () => {
      const t = database.get();
      const backend = `gpu-${randomUUID()}`;
      const request = {
        owner: 'waiting-for-nothing',
        leaseExpiresAt: new Date(T + 120_000),
        now: new Date(T + 60_000),
        queuedSince: new Date(T),
        backends: [{ id: backend, capacity: 1 }],
        place: (_run: unknown, free: readonly { id: string }[]) => free[0]?.id ?? null,
      };
      const runs = new KnexRunRepository(t.db);
      // The backend's row exists once a claim has seen it.
      await t.db('dispatch_backends').insert({ id: backend });
      // A claim that finds nothing first: on SQLite, one right after a claim that left runs waiting
      // goes straight to the lock (the claims of the test before may have left some on this pool).
      expect(await runs.claimMany(request, 4)).to.deep.equal([]);
      // Another instance in the middle of a claim: SQLite's write lock, or the backend's row on PostgreSQL.
      const elsewhere = await t.another().transaction();
      if (name === 'PostgreSQL') await elsewhere.raw('SELECT id FROM dispatch_backends WHERE id = ? FOR UPDATE', [backend]);
      else await elsewhere.raw('UPDATE dispatch_backends SET touched_at = 1 WHERE id = ?', [backend]);
      try {
        const outcome = await Promise.race([
          runs.claimMany(request, 4).then((claimed) => ({ claimed })),
          new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 3000).unref()),
        ]);
        expect(outcome, 'the claim waited for the other instance although nothing was waiting').to.deep.equal({ claimed: [] });
      } finally {
        await elsewhere.rollback();
      }
    });

    it(`${name === 'SQLite' ? 'claims a run with one read and one conditional write, in no transaction' : 'reads first whether a run waits, then claims it in one transaction'}`, async () => {
      const t = database.get();
      const { accountId, appVersionId } = await seedAccountAndApp(t.db);
      const [first, run] = [1, 2].map((ms) => newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T + ms), inputs: {} })) as [Run, Run];
      const runs = new KnexRunRepository(t.db);
      const request = {
        owner: 'one-run',
        leaseExpiresAt: new Date(T + 120_000),
        now: new Date(T + 60_000),
        queuedSince: new Date(T),
        backends: [{ id: `gpu-${randomUUID()}`, capacity: 2 }],
        place: (_run: unknown, free: readonly { id: string }[]) => free[0]?.id ?? null,
      };
      const backend = request.backends[0]?.id;
      // A claim with nothing waiting: the backend's row is written the first time a claim sees it.
      expect(await runs.claimMany(request, 4)).to.deep.equal([]);
      const statementsOf = async (claim: () => Promise<unknown>) => {
        const seen: string[] = [];
        const listener = (q: { sql: string }) => seen.push(q.sql);
        t.db.on('query', listener);
        try {
          await claim();
        } finally {
          t.db.removeListener('query', listener);
        }
        return seen;
      };
      // The first claim of a version reads its workflow (for placement); later ones remember it.
      await runs.create(first);
      const firstClaim = await statementsOf(async () => expect((await runs.claimMany(request, 1)).map((r) => r.id)).to.deep.equal([first.id]));
      expect(firstClaim.filter((sql) => /app_versions/.test(sql)), firstClaim.join('\n')).to.have.length(1);
      await runs.create(run);
      const statements = await statementsOf(async () => {
        const claimed = await runs.claimMany(request, 1);
        expect(claimed.map((r) => [r.id, r.backendId])).to.deep.equal([[run.id, backend]]);
      });
      // The backend's last placement, for warm placement, is noted with the reservation.
      const noted = await t.db('dispatch_backends').where({ id: backend }).first('last_app_version_id', 'last_placed_at');
      expect({ version: noted?.last_app_version_id, at: Number(noted?.last_placed_at) }).to.deep.equal({ version: appVersionId, at: T + 60_000 });
      const transactions = statements.filter((sql) => /^\s*BEGIN/i.test(sql));
      const reservations = statements.filter((sql) => /^\s*UPDATE runs/i.test(sql));
      if (name === 'SQLite') {
        expect(transactions, statements.join('\n')).to.have.length(0);
        expect(reservations, statements.join('\n')).to.have.length(1);
        // The page read and the reservation, which notes the placement as it writes.
        expect(statements, statements.join('\n')).to.have.length(2);
      } else {
        expect(statements.filter((sql) => /AS waiting/.test(sql)), statements.join('\n')).to.have.length(1);
        expect(transactions, statements.join('\n')).to.have.length(1);
      }
    });

    it('never puts more runs on a backend than its capacity, whatever the claims of three instances at once', async () => {
      const t = database.get();
      const { accountId, appVersionId } = await seedAccountAndApp(t.db);
      const made = Array.from({ length: 10 }, (_, i) => newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T + 100 + i), inputs: {} }));
      for (const r of made) await new KnexRunRepository(t.db).create(r);
      const backend = `gpu-${randomUUID()}`;
      const pools = [t.db, t.another(), t.another()].map((d) => new KnexRunRepository(d));
      const claims = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (pools[i % 3] as KnexRunRepository).claimMany(
            {
              owner: `instance-${i % 3}`,
              leaseExpiresAt: new Date(T + 120_000),
              now: new Date(T + 60_000),
              queuedSince: new Date(T),
              backends: [{ id: backend, capacity: 2 }],
              place: (_run, free) => free[0]?.id ?? null,
            },
            2,
          ),
        ),
      );
      const claimed = claims.flat();
      expect(claimed, 'two slots, two runs').to.have.length(2);
      expect(new Set(claimed.map((r) => r.id)).size).to.equal(2);
      const held = await t.db('runs').where({ backend_id: backend }).count<{ n: number }[]>({ n: '*' });
      expect(Number(held[0]?.n)).to.equal(2);
    });

    if (name === 'SQLite') {
      it('checks the room again as it writes: a slot taken by another process after its read is not handed out twice', async () => {
        const t = database.get();
        const { accountId, appVersionId } = await seedAccountAndApp(t.db);
        const backend = `gpu-${randomUUID()}`;
        const waiting = newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T + 200), inputs: {} });
        const runs = new KnexRunRepository(t.db);
        // Theirs is past this claim's queue time, so the claim's only candidate is the waiting run.
        const theirs = newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T - 1), inputs: {} });
        await runs.create(theirs);
        await runs.create(waiting);
        const request = { owner: 'late', leaseExpiresAt: new Date(T + 120_000), now: new Date(T + 60_000), queuedSince: new Date(T), backends: [{ id: backend, capacity: 1 }] };
        // A first claim that places nothing: the backend's row is written the first time a claim sees it.
        expect(await runs.claimMany({ ...request, place: () => null }, 1)).to.deep.equal([]);
        // Another process is placing its run on that backend, not yet committed.
        const elsewhere = await t.another().transaction();
        await elsewhere('runs').where({ id: theirs.id }).update({ status: 'running', backend_id: backend, lease_owner: 'elsewhere' });
        // This claim reads the order (the slot looks free), and its write waits for the other's lock;
        // the other commits once the claim's write is on its way.
        const reserving = new Promise<void>((resolve) => {
          const listener = (q: { sql: string }) => {
            if (!/^\s*UPDATE runs SET lease_owner/i.test(q.sql)) return;
            t.db.removeListener('query', listener);
            resolve();
          };
          t.db.on('query', listener);
        });
        const claiming = runs.claimMany({ ...request, place: (_run, free) => free[0]?.id ?? null }, 1);
        await reserving;
        await elsewhere.commit();
        expect(await claiming, 'the backend is full').to.deep.equal([]);
        expect((await runs.get(waiting.id))?.backendId).to.equal(null);
      });
    }

    if (name === 'PostgreSQL') {
      type Db = ReturnType<typeof database.get>;
      /** An account and its app, a backend warm for the app and a cold one. */
      const warmAndCold = async (t: Db) => {
        const { accountId, appVersionId } = await seedAccountAndApp(t.db);
        const [warm, cold] = [`gpu-warm-${randomUUID()}`, `gpu-cold-${randomUUID()}`];
        await t.db('dispatch_backends').insert([
          { id: warm, last_app_version_id: appVersionId, last_placed_at: T },
          { id: cold, last_app_version_id: null, last_placed_at: null },
        ]);
        return { accountId, appVersionId, warm, cold };
      };
      /** A claim of another instance on both backends, of the runs queued since `sinceMs` (those the tests before left waiting are older). */
      const claimOnBoth = (t: Db, warm: string, cold: string, sinceMs: number) =>
        new KnexRunRepository(t.another()).claimNext({
          owner: `beside-a-claim-${sinceMs}`,
          leaseExpiresAt: new Date(sinceMs + 120_000),
          now: new Date(sinceMs + 60_000),
          queuedSince: new Date(sinceMs),
          backends: [{ id: warm, capacity: 1 }, { id: cold, capacity: 1 }],
          place: (r, free) => placeRun(r, free, () => null),
        });

      it("leaves a run whose warm backend another claim holds to that backend, rather than put it cold on one it could lock", async () => {
        const t = database.get();
        const { accountId, appVersionId, warm, cold } = await warmAndCold(t);
        const run = newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T + 100_000), inputs: {} });
        await new KnexRunRepository(t.db).create(run);
        // Another instance's claim has the warm backend's row.
        const elsewhere = await t.another().transaction();
        await elsewhere.raw('SELECT id FROM dispatch_backends WHERE id = ? FOR UPDATE', [warm]);
        let settled = false;
        const claiming = claimOnBoth(t, warm, cold, T + 100_000).finally(() => (settled = true));
        try {
          await waitFor(async () => {
            if (settled) return true;
            const waiting = await t.db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM dispatch_backends%FOR UPDATE'`);
            return (waiting.rows[0] as { n: number }).n > 0;
          }, 'the claim to wait for the warm backend, or to settle');
        } finally {
          await elsewhere.commit();
        }
        expect((await claiming)?.backendId, 'the run went to its warm backend').to.equal(warm);
      });

      it('puts a run cold at once when its warm backend, which another claim holds, has no room', async () => {
        const t = database.get();
        const { accountId, appVersionId, warm, cold } = await warmAndCold(t);
        const runs = new KnexRunRepository(t.db);
        // The warm backend's one slot is taken by a run it is executing.
        const busy = newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T + 200_000), inputs: {} });
        await runs.create(busy);
        await t.db('runs').where({ id: busy.id }).update({ status: 'running', backend_id: warm, lease_owner: 'elsewhere', lease_expires_at: T + 900_000 });
        const run = newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T + 200_001), inputs: {} });
        await runs.create(run);
        const elsewhere = await t.another().transaction();
        await elsewhere.raw('SELECT id FROM dispatch_backends WHERE id = ? FOR UPDATE', [warm]);
        try {
          const outcome = await Promise.race([
            claimOnBoth(t, warm, cold, T + 200_000).then((claimed) => claimed?.backendId),
            new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 3000).unref()),
          ]);
          expect(outcome, 'the claim waited for a backend with no room').to.equal(cold);
        } finally {
          await elsewhere.rollback();
        }
      });

      it('gives an idle account the next slot even when two claims on two backends read the order at the same moment', async () => {
        const t = database.get();
        const busy = randomUUID();
        const idle = randomUUID();
        const appVersionId = randomUUID();
        const accounts = new KnexAccountRepository(t.db);
        for (const id of [busy, idle]) await accounts.create({ id, name: id, tier: 'ultra', status: 'active', createdAt: new Date(T) });
        await new KnexAppVersionRepository(t.db).create({ id: appVersionId, appId: randomUUID(), name: 'v', workflow: {}, inputs: [], createdAt: new Date(T), deletedAt: null });
        const queue = (accountId: string, at: number) => newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(at), inputs: {} });
        const [a1, a2, a3, b1] = [queue(busy, T + 1), queue(busy, T + 2), queue(busy, T + 3), queue(idle, T + 10)];
        for (const r of [a1, a2, a3, b1]) await new KnexRunRepository(t.db).create(r!);

        // A third instance is taking the busy account's oldest run: both claims below read the
        // order (each account holding nothing, so that run first), then wait on its row.
        const elsewhere = await t.another().transaction();
        await elsewhere.raw('SELECT id FROM runs WHERE id = ? FOR UPDATE', [a1!.id]);
        const now = new Date(T + 60_000);
        const claim = (db: ReturnType<typeof t.another>, backend: string) =>
          new KnexRunRepository(db).claimNext({
            owner: `on-${backend}`,
            leaseExpiresAt: new Date(T + 120_000),
            now,
            queuedSince: new Date(T),
            backends: [{ id: backend, capacity: 1 }],
            place: (_run, free) => free[0]?.id ?? null,
          });
        const claims = Promise.all([claim(t.another(), 'gpu-x'), claim(t.another(), 'gpu-y')]);
        const deadline = Date.now() + 10_000;
        for (;;) {
          if (Date.now() > deadline) await elsewhere.rollback();
          const waiting = await t.db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE runs SET lease_owner%'`);
          if ((waiting.rows[0] as { n: number }).n >= 2) break;
          if (Date.now() > deadline) throw new Error('the two claims never both waited on the run being taken elsewhere');
          await new Promise((r) => setImmediate(r));
        }
        await elsewhere.raw('UPDATE runs SET backend_id = ?, lease_owner = ?, lease_expires_at = ? WHERE id = ?', ['gpu-z', 'elsewhere', T + 120_000, a1!.id]);
        await elsewhere.commit();

        const got = (await claims).map((c) => c?.id);
        // The busy account now holds a run: the idle account's run is next, then the busy one's second.
        expect(new Set(got)).to.deep.equal(new Set([b1!.id, a2!.id]));
      });
    }
  });
}
