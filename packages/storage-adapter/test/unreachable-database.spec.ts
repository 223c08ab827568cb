import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreError } from '@runload/core';
import { checkDatabase, KnexAccountRepository, KnexRunRepository, migrate, openDatabase } from '@runload/storage-adapter';

describe('an unreachable PostgreSQL', function () {
  this.timeout(15_000);
  it('fails fast with STORAGE_UNAVAILABLE and reports itself unhealthy', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runload-down-'));
    const db = openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none', dataDir: dir });
    const started = Date.now();
    const error = await new KnexRunRepository(db).get('00000000-0000-4000-8000-000000000001').catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'STORAGE_UNAVAILABLE'), String(error)).to.equal(true);
    expect(Date.now() - started).to.be.below(6000);
    expect((await checkDatabase(db)).ok).to.equal(false);
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('a SQLite database locked by another process past the busy timeout', function () {
  this.timeout(15_000);
  it('answers STORAGE_UNAVAILABLE, and serves again once the lock is gone', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runload-busy-'));
    const db = openDatabase({ dataDir: dir, busyTimeoutMs: 100 });
    await migrate(db);
    const other = openDatabase({ dataDir: dir, poolMax: 1 }); // another process, say the CLI
    const locker = await other.client.acquireConnection();
    await new Promise<void>((resolve, reject) => locker.run('BEGIN EXCLUSIVE', (e: Error | null) => (e ? reject(e) : resolve())));
    const accounts = new KnexAccountRepository(db);
    const account = { id: '00000000-0000-4000-8000-000000000001', name: 'Ada', tier: 'starter', status: 'active', createdAt: new Date() } as const;
    const error = await accounts.create(account).catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'STORAGE_UNAVAILABLE'), String(error)).to.equal(true);
    await new Promise<void>((resolve, reject) => locker.run('ROLLBACK', (e: Error | null) => (e ? reject(e) : resolve())));
    await other.client.releaseConnection(locker);
    await accounts.create(account);
    expect((await accounts.get(account.id))?.name).to.equal('Ada');
    await other.destroy();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('a SQLite database whose disk is full', function () {
  this.timeout(15_000);
  it('answers STORAGE_UNAVAILABLE (try again), writes nothing, and writes once space returns', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runload-db-full-'));
    const db = openDatabase({ dataDir: dir, poolMax: 1 });
    await migrate(db);
    // The file may not grow past its current pages: SQLite fails the write with SQLITE_FULL, as on a full disk.
    const pages = Number((await db.raw('PRAGMA page_count'))[0]?.['page_count']);
    await db.raw(`PRAGMA max_page_count = ${pages}`);
    const accounts = new KnexAccountRepository(db);
    const account = { id: '00000000-0000-4000-8000-000000000002', name: 'x'.repeat(20_000), tier: 'starter', status: 'active', createdAt: new Date() } as const;
    const error = await accounts.create(account).catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'STORAGE_UNAVAILABLE'), String(error)).to.equal(true);
    expect(await accounts.get(account.id)).to.equal(null);
    await db.raw('PRAGMA max_page_count = 1073741823');
    await accounts.create(account);
    expect((await accounts.get(account.id))?.tier).to.equal('starter');
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
});
