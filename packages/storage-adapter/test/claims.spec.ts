/** Claims across instances: several connection pools on one database never hand a run out twice. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { newQueuedRun } from '@runload/core';
import { KnexAccountRepository, KnexAppVersionRepository, KnexRunRepository } from '@runload/storage-adapter';
import { TEST_DATABASES, useDatabase } from './databases.js';

const T = Date.UTC(2026, 0, 1);

for (const [name, open] of TEST_DATABASES) {
  describe(`claims on ${name} from several instances`, function () {
    const database = useDatabase(open);

    it('hands 20 queued runs to 50 concurrent claimers on three connection pools, each exactly once', async () => {
      const t = database.get();
      const db = t.db;
      const accountId = randomUUID();
      const appVersionId = randomUUID();
      await new KnexAccountRepository(db).create({ id: accountId, name: 'a', tier: 'ultra', status: 'active', createdAt: new Date(T) });
      await new KnexAppVersionRepository(db).create({ id: appVersionId, appId: randomUUID(), name: 'v', workflow: {}, inputs: [], createdAt: new Date(T), deletedAt: null });
      const made = Array.from({ length: 20 }, (_, i) => newQueuedRun({ id: randomUUID(), accountId, appVersionId, createdAt: new Date(T + i), inputs: {}, workflow: {} }));
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
  });
}
