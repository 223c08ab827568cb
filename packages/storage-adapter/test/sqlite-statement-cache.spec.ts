/** SQLite connections keep their prepared statements: the same answers as preparing each query, and no statement outlives its connection. */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import sqlite3 from 'sqlite3';
import { openDatabase } from '../src/open-database.js';
import { cacheStatements, type CachingSqliteConnection } from '../src/sqlite-statement-cache.js';

describe('SQLite prepared statements kept per connection', function () {
  let dir: string;
  let db: Knex;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runload-statements-'));
    db = openDatabase({ dataDir: dir });
    await db.raw('CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, n INTEGER NOT NULL)');
  });

  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives each run of a statement its own parameters, rows, ids and counts of changed rows', async () => {
    for (let i = 1; i <= 30; i += 1) {
      const [id] = await db('items').insert({ name: `item ${i}`, n: i });
      expect(id, 'the id of the row just inserted').to.equal(i);
    }
    for (let i = 1; i <= 30; i += 1) {
      expect(await db('items').where({ id: i }).first('name', 'n')).to.deep.equal({ name: `item ${i}`, n: i });
      expect(await db('items').where('n', '<=', i).update({ n: db.raw('n + 100') }), 'rows changed').to.equal(1);
    }
    const rows = await db.raw('SELECT COUNT(*) AS c, MIN(n) AS low FROM items WHERE n > ?', [100]);
    expect(rows).to.deep.equal([{ c: 30, low: 101 }]);
  });

  it('reports a failing run and runs the same statement again afterwards', async () => {
    await db('items').insert({ name: 'taken', n: 1 });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const error = await db('items').insert({ name: 'taken', n: 2 }).then(() => null, (e: Error) => e);
      expect(error?.message).to.match(/UNIQUE constraint failed: items.name/);
    }
    await db('items').insert({ name: 'free', n: 3 });
    expect(await db('items').orderBy('id').pluck('name')).to.deep.equal(['taken', 'free']);
  });

  it('reports a statement that cannot be prepared every time it is run, never leaving a caller waiting', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const error = await db.raw('SELECT missing FROM nowhere').then(() => null, (e: Error) => e);
      expect(error?.message, String(error?.message)).to.match(/no such table: nowhere/);
    }
  });

  it('sees what other connections wrote since its last run (a kept statement holds no snapshot)', async () => {
    const reader = openDatabase({ dataDir: dir });
    try {
      const count = async () => ((await reader.raw('SELECT COUNT(*) AS c FROM items')) as { c: number }[])[0]?.c;
      for (let i = 1; i <= 5; i += 1) {
        await db('items').insert({ name: `n${i}`, n: i });
        expect(await count()).to.equal(i);
      }
    } finally {
      await reader.destroy();
    }
  });

  it('prepares a statement once for its many runs and finalizes every statement before the connection closes', async () => {
    const raw = new sqlite3.Database(path.join(dir, 'raw.sqlite'));
    const conn = raw as unknown as CachingSqliteConnection;
    let prepared = 0;
    const prepare = conn.prepare.bind(conn);
    conn.prepare = (sql, callback) => ((prepared += 1), prepare(sql, callback));
    cacheStatements(conn, 2);
    const all = (sql: string, params: unknown[]) =>
      new Promise<unknown[]>((resolve, reject) => conn.all(sql, params, (error: Error | null, rows: unknown[]) => (error ? reject(error) : resolve(rows))));
    for (let i = 0; i < 10; i += 1) expect(await all('SELECT ? + 1 AS x', [i])).to.deep.equal([{ x: i + 1 }]);
    expect(prepared, 'one text run ten times').to.equal(1);
    // Three texts with room for two: the least recently used goes, and comes back when used again.
    for (const sql of ['SELECT ? AS a', 'SELECT ? AS b', 'SELECT ? + 1 AS x']) for (let i = 0; i < 2; i += 1) await all(sql, [i]);
    expect(prepared).to.equal(4);
    await new Promise<void>((resolve, reject) => conn.close((error) => (error ? reject(error) : resolve())));
  });
});
