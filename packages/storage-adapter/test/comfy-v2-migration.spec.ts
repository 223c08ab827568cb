/**
 * Upgrading to migration 011: assets stored before keep their rows and get their BLAKE3 from their
 * bytes, app versions stay listed, and the migration can be undone again (SQLite rebuilds no table).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FillBlake3 } from '@runload/core';
import { KnexAppVersionRepository, KnexAssetRepository, LocalBlobStore, migrate } from '@runload/storage-adapter';
import { undoMigrationsAfter } from '../src/migrations.js';
import { pgUrl, postgresDatabase, seedAccountAndApp, sqliteDatabase } from './databases.js';

async function* bytes(text: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(text);
}

describe('upgrading to migration 011 (BLAKE3 and graph versions)', function () {
  for (const [name, open] of [['SQLite', sqliteDatabase], ['PostgreSQL', async () => postgresDatabase(pgUrl() as string)]] as const) {
    it(`gives the assets stored before their BLAKE3 from their bytes, and undoes cleanly (${name})`, async function () {
      if (name === 'PostgreSQL' && !pgUrl()) this.skip();
      const t = await open();
      const root = mkdtempSync(path.join(os.tmpdir(), 'runload-blobs-'));
      try {
        const { accountId, appVersionId } = await seedAccountAndApp(t.db);
        await undoMigrationsAfter(t.db, '010_backends');
        const blobs = new LocalBlobStore(root);
        const staged = await blobs.stage(bytes('abc'), { maxBytes: 10 });
        await staged.commit();
        const id = randomUUID();
        await t.db('assets').insert({ id, account_id: accountId, filename: 'a.png', content_type: 'image/png', size: 3, sha256: staged.sha256, created_at: 1, origin: 'upload', expires_at: null });
        await migrate(t.db);
        const assets = new KnexAssetRepository(t.db);
        expect((await assets.get(id))?.blake3).to.equal(null);
        expect(await new FillBlake3(assets, blobs).run()).to.equal(1);
        expect((await assets.findByBlake3(accountId, staged.blake3, new Date(2)))?.id).to.equal(id);
        expect((await new KnexAppVersionRepository(t.db).get(appVersionId))?.id).to.equal(appVersionId);
        await undoMigrationsAfter(t.db, '010_backends');
        expect(await t.db('assets').where({ id }).first('sha256')).to.deep.equal({ sha256: staged.sha256 });
      } finally {
        await t.close();
        rmSync(root, { recursive: true, force: true });
      }
    });
  }
});
