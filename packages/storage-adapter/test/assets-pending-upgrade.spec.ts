/** Upgrading to pending asset records (migration 012) keeps every asset stored before it visible. */
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Asset } from '@runload/core';
import { KnexAssetRepository, migrate } from '@runload/storage-adapter';
import { undoMigrationsAfter } from '../src/migrations.js';
import { seedAccountAndApp, TEST_DATABASES, useDatabase } from './databases.js';

for (const [name, open] of TEST_DATABASES) {
  describe(`asset records across migration 012 on ${name}`, () => {
    const database = useDatabase(open);

    it('shows an asset stored before the upgrade, and hides one written pending after it', async () => {
      const db = database.get().db;
      const { accountId } = await seedAccountAndApp(db);
      const stored: Asset = {
        id: randomUUID(),
        accountId,
        filename: 'before.png',
        blake3: null,
        contentType: 'image/png',
        size: 10,
        sha256: randomBytes(32).toString('hex'),
        createdAt: new Date(Date.UTC(2026, 0, 1)),
        origin: 'upload',
        expiresAt: null,
      };
      await undoMigrationsAfter(db, '008_waiting_runs');
      await db('assets').insert({
        id: stored.id,
        account_id: accountId,
        filename: stored.filename,
        content_type: stored.contentType,
        size: stored.size,
        sha256: stored.sha256,
        created_at: stored.createdAt.getTime(),
        origin: 'upload',
        expires_at: null,
      });
      await migrate(db);
      const assets = new KnexAssetRepository(db);
      expect(await assets.get(stored.id)).to.deep.equal(stored);
      expect(await assets.listPending(new Date(Date.UTC(2030, 0, 1)), 10)).to.deep.equal([]);
      const pending = { ...stored, id: randomUUID(), filename: 'after.png' };
      await assets.createPending(pending);
      expect((await assets.listByAccount(accountId, { limit: 10, now: new Date(Date.UTC(2026, 0, 2)) })).assets.map((a) => a.id)).to.deep.equal([stored.id]);
    });
  });
}
