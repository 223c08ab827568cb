/**
 * SQLite writes queued in this process, one at a time, instead of on SQLite's lock.
 *
 * SQLite lets one connection write at a time. A connection that finds the lock taken sleeps in
 * its busy handler (1, 2, 5, 10… ms) on a libuv worker thread, so under load a write that takes
 * a tenth of a millisecond waited several, and the sleeping threads held up the file operations
 * that share libuv's pool. Here the connections of one database handle take turns in
 * JavaScript: a transaction holds the turn from BEGIN to COMMIT or ROLLBACK, a write outside one
 * for its statement; reads never wait (WAL gives them a snapshot). Between processes on one
 * file, SQLite's busy timeout still arbitrates.
 * @module
 */

type Callback = (this: unknown, error: Error | null, ...rest: unknown[]) => void;
type Method = (sql: string, ...args: unknown[]) => unknown;

/** The node-sqlite3 connection methods knex calls (every statement goes through one of them). */
export interface RawSqliteConnection {
  all: Method;
  run: Method;
  on(event: 'close', listener: () => void): unknown;
}

/** A FIFO of writers; a wait longer than the busy timeout fails like SQLite's own (SQLITE_BUSY). */
export class WriteTurns {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly timeoutMs: number) {}

  /** Resolves with the function that ends the turn (safe to call more than once). */
  take(): Promise<() => void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve(this.releaser());
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(turn), 1);
        reject(Object.assign(new Error(`SQLITE_BUSY: waited ${this.timeoutMs} ms for a turn to write`), { code: 'SQLITE_BUSY' }));
      }, this.timeoutMs);
      this.waiting.push(turn);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held = false;
    };
  }
}

type Kind = 'begin' | 'commit' | 'rollback' | 'write' | 'other';

// Savepoints and ROLLBACK TO run inside a transaction, whose turn is already held.
function kindOf(sql: string): Kind {
  if (/^\s*BEGIN\b/i.test(sql)) return 'begin';
  if (/^\s*(COMMIT|END)\b/i.test(sql)) return 'commit';
  if (/^\s*ROLLBACK\s*;?\s*$/i.test(sql)) return 'rollback';
  // A read that merely names one of these words only queues needlessly; a write never slips by.
  if (/\b(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|VACUUM)\b/i.test(sql)) return 'write';
  return 'other';
}

/** Makes `conn` take a turn of `turns` for its transactions and its writes outside them. */
export function takeTurnsToWrite(conn: RawSqliteConnection, turns: WriteTurns): void {
  // The end of the turn of this connection's open transaction, if it has one.
  let endTransaction: (() => void) | null = null;
  conn.on('close', () => endTransaction?.());

  for (const name of ['all', 'run'] as const) {
    const original = conn[name].bind(conn);
    const call = (sql: string, args: unknown[], callback: Callback) => original(sql, ...args, callback);

    conn[name] = (sql: string, ...rest: unknown[]) => {
      const last = rest.at(-1);
      if (typeof last !== 'function') return original(sql, ...rest);
      const args = rest.slice(0, -1);
      const callback = last as Callback;
      const kind = kindOf(sql);

      if (kind === 'begin' && endTransaction === null) {
        turns.take().then(
          (end) =>
            // IMMEDIATE: SQLite's write lock too is taken at once, so a transaction that reads
            // before it writes never finds, at its first write, that another process wrote since.
            call(/^\s*BEGIN\s*;?\s*$/i.test(sql) ? 'BEGIN IMMEDIATE;' : sql, args, function (this: unknown, error, ...result) {
              if (error) end();
              else endTransaction = end;
              callback.call(this, error, ...result);
            }),
          (error: Error) => callback.call(undefined, error),
        );
      } else if ((kind === 'commit' || kind === 'rollback') && endTransaction !== null) {
        const end = endTransaction;
        call(sql, args, function (this: unknown, error, ...result) {
          const finish = () => {
            endTransaction = null;
            end();
            callback.call(this, error, ...result);
          };
          // A COMMIT that failed leaves the transaction open; it is rolled back before the turn
          // passes, or the next writer would find SQLite's lock still held by this connection.
          if (error && kind === 'commit') original('ROLLBACK', () => finish());
          else finish();
        });
      } else if (kind === 'write' && endTransaction === null) {
        turns.take().then(
          (end) =>
            call(sql, args, function (this: unknown, ...result) {
              end();
              callback.apply(this, result as Parameters<Callback>);
            }),
          (error: Error) => callback.call(undefined, error),
        );
      } else {
        return call(sql, args, callback);
      }
      return conn;
    };
  }
}
