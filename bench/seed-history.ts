/**
 * Seeds a runload database with a history, in set-based SQL (a recursive CTE on SQLite,
 * generate_series on PostgreSQL): other accounts, app versions, finished runs with their GPU
 * charges, and assets. The benchmark's own account owns a tenth of the runs and assets, spread
 * over the last 180 days like the rest.
 * @module
 */
import type { Knex } from 'knex';
import { countBackendUsage, dialectOf, type Dialect } from '@runload/storage-adapter';

export interface HistoryShape {
  readonly runs: number;
  readonly assets: number;
  /** The account whose requests the benchmark times. */
  readonly accountId: string;
  /** An app version whose workflow the seeded versions copy; a tenth of the runs are of it. */
  readonly appVersionId: string;
}

const OTHER_ACCOUNTS = 2000;
const APP_VERSIONS = 100;
const DAYS = 180;

/** The few SQL spellings that differ between the two databases. */
function dialectSql(dialect: Dialect) {
  const hex = (expr: string, width: number) =>
    dialect === 'postgres' ? `lpad(to_hex(${expr}), ${width}, '0')` : `printf('%0${width}x', ${expr})`;
  return {
    /** A UUID-shaped text from an integer expression, distinct per prefix. */
    uuid: (prefix: string, expr: string) => `'${prefix}-0000-4000-8000-' || ${hex(expr, 12)}`,
    hex,
    /** `seq(i)` with i from 1 to n (64-bit on PostgreSQL: i times a time step exceeds 32 bits). */
    sequence: (n: number) =>
      dialect === 'postgres' ? `WITH seq(i) AS (SELECT generate_series(1::bigint, ${n}))` : `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${n})`,
    no: dialect === 'postgres' ? 'false' : '0',
  };
}

export async function seedHistory(db: Knex, shape: HistoryShape): Promise<void> {
  const dialect = dialectOf(db);
  const postgres = dialect === 'postgres';
  const { uuid, hex, sequence, no } = dialectSql(dialect);
  const now = Date.now();
  const span = DAYS * 86_400_000;
  const owner = (i: string) => `CASE WHEN ${i} % 10 = 0 THEN '${shape.accountId}' ELSE ${uuid('aaaaaaaa', `${i} % ${OTHER_ACCOUNTS}`)} END`;
  await db.raw(
    `${sequence(OTHER_ACCOUNTS)}
     INSERT INTO accounts (id, name, tier, status, created_at)
     SELECT ${uuid('aaaaaaaa', 'i % ' + OTHER_ACCOUNTS)}, 'seeded ' || i, 'plus', 'active', ${now - span} FROM seq`,
  );
  await db.raw(
    `${sequence(APP_VERSIONS)}
     INSERT INTO app_versions (id, app_id, name, workflow, inputs, created_at, deleted_at)
     SELECT ${uuid('bbbbbbbb', 'i')}, ${uuid('bbbbbbbb', 'i')}, 'seeded ' || i, v.workflow, v.inputs, ${now - span}, NULL
       FROM seq, (SELECT workflow, inputs FROM app_versions WHERE id = ?) v`,
    [shape.appVersionId],
  );
  // One statement of a million finished runs would update the four backends' usage rows (kept by a
  // trigger) a million times in one transaction, every version of them kept: PostgreSQL took
  // longer than 15 minutes. Their counts are made once after, by the migration's own count.
  if (postgres) await db.raw('ALTER TABLE runs DISABLE TRIGGER backend_usage_insert');
  // Finished runs: 90% succeeded, 8% failed, 2% canceled; one of the benchmark's app versions in ten.
  await db.raw(
    `${sequence(shape.runs)}
     INSERT INTO runs (id, account_id, app_version_id, status, created_at, started_at, finished_at, inputs,
                       progress, outputs, error, metrics, gpu_seconds, backend_id, lease_owner, lease_expires_at, cancel_requested)
     SELECT ${uuid('cccccccc', 'i')}, ${owner('i')},
            CASE WHEN i % 10 = 3 THEN ? ELSE ${uuid('bbbbbbbb', `1 + i % ${APP_VERSIONS}`)} END,
            CASE WHEN i % 100 < 90 THEN 'succeeded' WHEN i % 100 < 98 THEN 'failed' ELSE 'canceled' END,
            t, t + 200, t + 200 + 1000 + i % 5000, '{}', NULL, '[]', NULL,
            '{"queueMs":200,"runMs":' || (1000 + i % 5000) || ',"gpuSeconds":' || ((1000 + i % 5000) / 1000.0) || '}',
            (1000 + i % 5000) / 1000.0, 'http://gpu-' || (i % 4) || ':8188', NULL, NULL, ${no}
       FROM (SELECT i, ${now - span} + i * ${Math.floor(span / Math.max(1, shape.runs))} AS t FROM seq) s`,
    [shape.appVersionId],
  );
  if (postgres) {
    await db.raw('ALTER TABLE runs ENABLE TRIGGER backend_usage_insert');
    // No run had finished before these (the database holds an account and an app only).
    await countBackendUsage(db);
  }
  await db.raw(`INSERT INTO gpu_charges (run_id, account_id, seconds, charged_at) SELECT id, account_id, gpu_seconds, finished_at FROM runs WHERE gpu_seconds IS NOT NULL`);
  // Every account and app version that ever had a run in flight keeps its (now zero) counter row.
  // (WHERE true: SQLite needs it to read ON CONFLICT as the upsert clause.)
  await db.raw(
    `INSERT INTO runs_in_flight (account_id, app_version_id, n)
     SELECT DISTINCT account_id, app_version_id, 0 FROM runs WHERE true
     ON CONFLICT (account_id, app_version_id) DO NOTHING`,
  );
  await db.raw(
    `${sequence(shape.assets)}
     INSERT INTO assets (id, account_id, filename, content_type, size, sha256, blake3, created_at)
     SELECT ${uuid('dddddddd', 'i')}, ${owner('i')}, 'seeded-' || i || '.png', 'image/png', 1000 + i % 100000,
            ${hex('i', 64)}, ${hex(`i + ${shape.assets}`, 64)}, ${now - span} + i * ${Math.floor(span / Math.max(1, shape.assets))}
       FROM seq`,
  );
  // A database that grew to this size over months has been vacuumed and analyzed by PostgreSQL's
  // autovacuum many times; a freshly seeded one is told to (and autovacuum may be off, as on the
  // bench machine): without it every index-only scan reads the table too, and the monthly usage
  // rows carry a million dead versions from the seeding's upserts.
  if (dialectOf(db) === 'postgres') await db.raw('VACUUM ANALYZE');
}
