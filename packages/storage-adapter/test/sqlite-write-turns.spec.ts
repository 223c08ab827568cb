/** SQLite writers of one database handle take turns in this process instead of failing or sleeping on SQLite's lock. */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { openDatabase } from '../src/open-database.js';
import { WriteTurns } from '../src/sqlite-write-turns.js';

describe('SQLite writes taking turns', function () {
  let dir: string;
  let db: Knex;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runload-turns-'));
    // No busy timeout: a write that met another connection's lock would fail at once with SQLITE_BUSY.
    db = openDatabase({ dataDir: dir, busyTimeoutMs: 0 });
    await db.raw('CREATE TABLE counters (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    await db.raw('CREATE TABLE log (id INTEGER PRIMARY KEY AUTOINCREMENT, what TEXT NOT NULL)');
    await db('counters').insert({ id: 'c', n: 0 });
  });

  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs 200 concurrent writes and read-then-write transactions on every pooled connection, none refused and no increment lost', async () => {
    const work = Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? db('log').insert({ what: `write ${i}` })
        : // Read, then write what was read: without one writer at a time, an increment would be lost or refused.
          db.transaction(async (trx) => {
            const row = (await trx('counters').where({ id: 'c' }).first()) as { n: number };
            await trx('counters').where({ id: 'c' }).update({ n: row.n + 1 });
          }),
    );
    const settled = await Promise.allSettled(work);
    const refused = settled.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason));
    expect(refused).to.deep.equal([]);
    expect(((await db('counters').where({ id: 'c' }).first()) as { n: number }).n).to.equal(100);
    expect(((await db('log').count({ n: '*' }).first()) as { n: number }).n).to.equal(100);
  });

  it('passes the turn on when a transaction fails, so later writes go through', async () => {
    const failed = db.transaction(async (trx) => {
      await trx('log').insert({ what: 'rolled back' });
      throw new Error('the caller gave up');
    });
    const after = db('log').insert({ what: 'kept' });
    const outcome = await failed.then(
      () => 'committed',
      (e: Error) => e.message,
    );
    expect(outcome).to.equal('the caller gave up');
    await after;
    expect((await db('log').select('what')).map((r: { what: string }) => r.what)).to.deep.equal(['kept']);
  });

  it('lets reads through while a transaction holds the turn', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const transaction = db.transaction(async (trx) => {
      await trx('log').insert({ what: 'inside' });
      await held;
    });
    // The read is answered from the last committed state while the writer waits.
    expect(((await db('log').count({ n: '*' }).first()) as { n: number }).n).to.equal(0);
    release();
    await transaction;
    expect(((await db('log').count({ n: '*' }).first()) as { n: number }).n).to.equal(1);
  });
});

describe('WriteTurns', () => {
  it('hands turns out first come, first served', async () => {
    const turns = new WriteTurns(1000);
    const order: number[] = [];
    const first = await turns.take();
    const waiting = [1, 2, 3].map((i) => turns.take().then((end) => (order.push(i), end())));
    first();
    await Promise.all(waiting);
    expect(order).to.deep.equal([1, 2, 3]);
  });

  it('fails a wait longer than the busy timeout with SQLITE_BUSY, as SQLite would', async () => {
    const turns = new WriteTurns(20);
    const end = await turns.take();
    const error = await turns.take().then(
      () => null,
      (e: unknown) => e as { code?: string },
    );
    expect(error?.code).to.equal('SQLITE_BUSY');
    end();
    // The timed-out waiter left the queue: the next taker gets the turn at once.
    (await turns.take())();
  });
});
