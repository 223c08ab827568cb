/**
 * Opens the database: a SQLite file in the data directory by default (WAL, busy timeout, so a
 * CLI and a server can write side by side), or PostgreSQL for many instances.
 * @module
 */
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { makeDirectory } from './make-directory.js';
import { takeTurnsToWrite, WriteTurns, type RawSqliteConnection } from './sqlite-write-turns.js';
import { cacheStatements, type CachingSqliteConnection } from './sqlite-statement-cache.js';

export interface DatabaseConfig {
  /** `postgres://…`; null or absent for SQLite in `dataDir`. */
  readonly url?: string | null;
  readonly dataDir: string;
  /** PostgreSQL schema to use (tests isolate themselves with one). */
  readonly schema?: string;
  /** Largest connection pool (PostgreSQL). */
  readonly poolMax?: number;
  /** PostgreSQL: the longest wait for one query's answer (default 10 s); past it, STORAGE_UNAVAILABLE. */
  readonly queryTimeoutMs?: number;
  /** SQLite: how long a statement waits for another writer's lock before failing (default 10 s). */
  readonly busyTimeoutMs?: number;
}

/** PostgreSQL: how long opening a connection may take. */
const CONNECT_TIMEOUT_MS = 5000;
/** PostgreSQL: how long one query may wait for its answer. */
const QUERY_TIMEOUT_MS = 10_000;

/** The parts of a pg client used here; knex drops a connection it finds marked `__knex__disposed`. */
interface PgConnection {
  query(...args: unknown[]): unknown;
  end(): Promise<void>;
  __knex__disposed?: unknown;
}

/**
 * A query that timed out leaves its connection out of step with the server (the late answer
 * would be read as the next query's): knex is told to drop it, and it is closed.
 */
function discardAfterTimeout(conn: PgConnection): void {
  const query = conn.query.bind(conn);
  conn.query = (...args: unknown[]) => {
    const callback = args[args.length - 1];
    if (typeof callback !== 'function') return query(...args);
    return query(...args.slice(0, -1), (err: Error | null, result: unknown): void => {
      if (err && /Query read timeout/.test(err.message)) {
        conn.__knex__disposed = err;
        conn.end().catch(() => undefined);
      }
      (callback as (e: Error | null, r: unknown) => void)(err, result);
    });
  };
}

export type Dialect = 'sqlite' | 'postgres';

export function dialectOf(db: Knex): Dialect {
  return db.client.config.client === 'pg' ? 'postgres' : 'sqlite';
}

/**
 * knex's own messages (a failed connection attempt, a deprecation) go to stderr: it would print
 * them on stdout, where the CLI writes its results (`--json`).
 */
const toStderr = (message: unknown) => {
  process.stderr.write(`knex: ${(message instanceof Error ? message.message : String(message)).split('\n')[0]}\n`);
};
const KNEX_LOG = { warn: toStderr, error: toStderr, deprecate: toStderr, debug: () => undefined };

export function openDatabase(config: DatabaseConfig): Knex {
  if (config.url) {
    return knexFactory({
      client: 'pg',
      log: KNEX_LOG,
      // A server that accepts connections and never answers must not hold a request forever: the
      // connection and every query are bounded, and their timeouts read as an unreachable database.
      connection: {
        connectionString: config.url,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        query_timeout: config.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
        keepAlive: true,
      },
      ...(config.schema ? { searchPath: [config.schema] } : {}),
      pool: {
        min: 0,
        max: config.poolMax ?? 10,
        afterCreate: (conn: PgConnection, done: (err: Error | null, c: unknown) => void) => {
          discardAfterTimeout(conn);
          // A schema of our own is created on first use, so tests and tenants can isolate themselves.
          if (!config.schema) return done(null, conn);
          conn.query(`CREATE SCHEMA IF NOT EXISTS "${config.schema}"`, (err: Error | null) => done(err, conn));
        },
      },
      acquireConnectionTimeout: 5000,
    });
  }
  makeDirectory(config.dataDir);
  const busyTimeoutMs = Math.max(0, Math.floor(config.busyTimeoutMs ?? 10_000));
  // Writers of this process queue up to the busy timeout (10 s when it is 0: queueing here is not
  // the contention with other processes that a timeout of 0 refuses).
  const turns = new WriteTurns(busyTimeoutMs > 0 ? busyTimeoutMs : 10_000);
  return knexFactory({
    client: 'sqlite3',
    log: KNEX_LOG,
    connection: { filename: path.join(config.dataDir, 'runload.sqlite') },
    useNullAsDefault: true,
    pool: {
      // WAL lets readers run beside the writer; this process's writers take turns (WriteTurns),
      // and writers of other processes queue on SQLite's lock (busy_timeout).
      min: 1,
      max: config.poolMax ?? 4,
      afterCreate: (conn: RawSqliteConnection, done: (err: Error | null, c: unknown) => void) => {
        // temp_store: the statement journal of a write whose triggers run (every change of a run's
        // status) is kept in memory, not in a temporary file: a third of such a write's time.
        const pragmas = ['PRAGMA journal_mode = WAL', `PRAGMA busy_timeout = ${busyTimeoutMs}`, 'PRAGMA foreign_keys = ON', 'PRAGMA synchronous = NORMAL', 'PRAGMA temp_store = MEMORY'];
        const next = (i: number): void => {
          if (i === pragmas.length) {
            cacheStatements(conn as RawSqliteConnection & CachingSqliteConnection);
            takeTurnsToWrite(conn, turns);
            return done(null, conn);
          }
          conn.run(pragmas[i] as string, (err: Error | null) => (err ? done(err, conn) : next(i + 1)));
        };
        next(0);
      },
    },
  });
}
