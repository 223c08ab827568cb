import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Asset } from '@runload/core';
import { KnexAssetRepository } from '@runload/storage-adapter';
import { seedAccountAndApp, TEST_DATABASES, useDatabase } from './databases.js';

function anAsset(accountId: string): Asset {
  return {
    id: randomUUID(),
    accountId,
    filename: 'out.png',
    contentType: 'image/png',
    size: 10,
    sha256: randomBytes(32).toString('hex'),
    blake3: null,
    createdAt: new Date(Date.UTC(2026, 0, 1)),
    origin: 'output',
    expiresAt: null,
  };
}

for (const [name, open] of TEST_DATABASES) {
  describe(`asset calls made together, on ${name}`, () => {
    const database = useDatabase(open);
    let accountId = '';
    before(async function () {
      if (database.get()) accountId = (await seedAccountAndApp(database.get().db)).accountId;
    });

    /** The statements `work` sent. */
    async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
      const sent: string[] = [];
      const listen = (query: { sql: string }) => void sent.push(query.sql);
      database.get().db.on('query', listen);
      try {
        await work();
      } finally {
        database.get().db.off('query', listen);
      }
      return sent;
    }

    it('reads the inputs of runs dispatched together with one statement', async () => {
      const assets = new KnexAssetRepository(database.get().db);
      const stored = [anAsset(accountId), anAsset(accountId)];
      for (const a of stored) await assets.create(a);
      const sent = await statementsOf(() => Promise.all([assets.get(stored[0]!.id), assets.get(stored[1]!.id), assets.get(stored[0]!.id)]));
      expect(sent).to.have.length(1);
    });

    it('makes the outputs of runs finished together visible with one statement', async () => {
      const assets = new KnexAssetRepository(database.get().db);
      const pending = [anAsset(accountId), anAsset(accountId), anAsset(accountId)];
      for (const a of pending) await assets.createPending(a);
      const sent = await statementsOf(() => Promise.all(pending.map((a) => assets.markStored(a.id))));
      expect(sent).to.have.length(1);
    });
  });
}
