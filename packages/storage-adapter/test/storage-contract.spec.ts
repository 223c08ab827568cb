import { expect } from 'chai';
import { describeStorageContract, anAccount, anAppVersion, aRun } from '@runload/core/testing';
import { KnexRunRepository, migrate } from '@runload/storage-adapter';
import { pgUrl, postgresDatabase, sqliteDatabase, storagePorts, type TestDatabase } from './databases.js';

describeStorageContract('knex + sqlite', async () => {
  const t = await sqliteDatabase();
  return { ports: storagePorts(t.db), teardown: () => t.close() };
});

const url = pgUrl();
if (url) {
  describeStorageContract('knex + postgresql', async () => {
    const t = await postgresDatabase(url);
    return { ports: storagePorts(t.db), teardown: () => t.close() };
  });
} else {
  describe('storage contract: knex + postgresql', () => {
    it('needs RUNLOAD_TEST_PG_URL');
  });
}

for (const [name, open] of [['sqlite', sqliteDatabase], ['postgresql', url ? () => postgresDatabase(url) : null]] as const) {
  describe(`knex storage on ${name}`, function () {
    let t: TestDatabase;
    before(async function () {
      if (!open) return this.skip();
      t = await open();
    });
    after(async () => t?.close());

    it('migrates twice without change', async () => {
      await migrate(t.db);
      await migrate(t.db);
      const tables = await storagePorts(t.db).accounts.list();
      expect(tables).to.be.an('array');
    });

    it('hands 20 queued runs to 50 claimers on several connection pools exactly once, and a second pool sees writes', async () => {
      const ports = storagePorts(t.db);
      const account = anAccount();
      await ports.accounts.create(account);
      const version = anAppVersion();
      await ports.appVersions.create(version);
      for (let i = 0; i < 20; i += 1) await ports.runs.create(aRun(account.id, version.id, { createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)) }));
      const pools = [t.db, t.another(), t.another()].map((db) => new KnexRunRepository(db));
      const now = new Date(Date.UTC(2026, 0, 2));
      const claims = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (pools[i % pools.length] as KnexRunRepository).claimNextQueued(`d${i}`, new Date(now.getTime() + 60_000), now)),
      );
      const ids = claims.filter((c) => c !== null).map((c) => c?.id);
      expect(ids).to.have.length(20);
      expect(new Set(ids).size).to.equal(20);
      expect(await new KnexRunRepository(t.another()).countActive(account.id)).to.equal(20);
    });
  });
}
