/**
 * Prepared statements kept per SQLite connection, so a statement run again is not compiled again.
 *
 * knex hands node-sqlite3 the SQL text of every query, and node-sqlite3 prepares it, runs it and
 * finalizes it: two trips to libuv's thread pool and a compilation for each query, most of the
 * main thread's cost of a query. The queries of this service are few texts run many times, so
 * each connection keeps the last few hundred prepared. A text is prepared beside its first run
 * and used once its preparation succeeded; a statement that fails is dropped and prepared anew
 * (SQLite itself prepares again a statement whose schema changed).
 * @module
 */

type Callback = (this: unknown, error: Error | null, ...rest: unknown[]) => void;
type Method = (sql: string, ...args: unknown[]) => unknown;

interface PreparedStatement {
  all(params: unknown[], callback: Callback): unknown;
  run(params: unknown[], callback: Callback): unknown;
  finalize(callback?: () => void): unknown;
}

/** The node-sqlite3 connection methods this needs (knex runs every query through `all` or `run`). */
export interface CachingSqliteConnection {
  all: Method;
  run: Method;
  close: (callback?: (error: Error | null) => void) => unknown;
  prepare(sql: string, callback: (error: Error | null) => void): PreparedStatement;
}

interface Entry {
  readonly statement: PreparedStatement;
  ready: boolean;
}

/** Statements kept per connection: the service's texts, with room for `IN (?, …)` lists of many lengths. */
export const STATEMENTS_KEPT = 256;

/** Makes `conn` run its queries on statements it prepared once. */
export function cacheStatements(conn: CachingSqliteConnection, max = STATEMENTS_KEPT): void {
  // Least recently used first (a Map keeps insertion order; a use moves its entry to the end).
  const entries = new Map<string, Entry>();
  const drop = (sql: string, entry: Entry) => {
    if (entries.get(sql) === entry) entries.delete(sql);
    entry.statement.finalize();
  };
  const prepareBeside = (sql: string) => {
    const entry: Entry = {
      ready: false,
      statement: conn.prepare(sql, (error) => {
        if (error) drop(sql, entry);
        else entry.ready = true;
      }),
    };
    entries.set(sql, entry);
    if (entries.size > max) {
      const [oldestSql, oldest] = entries.entries().next().value as [string, Entry];
      drop(oldestSql, oldest);
    }
  };

  for (const name of ['all', 'run'] as const) {
    const original = conn[name].bind(conn);
    conn[name] = (sql: string, ...rest: unknown[]) => {
      const callback = rest.at(-1);
      // Only the calls knex makes: the SQL, its positional parameters (or none), the callback.
      if (typeof callback !== 'function' || rest.length > 2 || (rest.length === 2 && !Array.isArray(rest[0]))) return original(sql, ...rest);
      const params = rest.length === 2 ? (rest[0] as unknown[]) : [];
      const entry = entries.get(sql);
      if (!entry?.ready) {
        if (!entry) prepareBeside(sql);
        return original(sql, params, callback);
      }
      entries.delete(sql);
      entries.set(sql, entry);
      entry.statement[name](params, function (this: unknown, error, ...result) {
        if (error) drop(sql, entry);
        (callback as Callback).call(this, error, ...result);
      });
      return conn;
    };
  }

  // SQLite refuses to close a connection with statements still prepared.
  const close = conn.close.bind(conn);
  conn.close = (callback) => {
    for (const [sql, entry] of [...entries]) drop(sql, entry);
    return close(callback);
  };
}
