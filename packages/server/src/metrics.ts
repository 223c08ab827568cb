/**
 * `GET /metrics` (Prometheus text, prom-client). Observed from outside the use cases: the HTTP
 * app reports each request, the run repository is wrapped when the container activates it (runs
 * created, finished, dispatched), and gauges are read at scrape time from the database (shared
 * by every instance) and the executor. No account id or key is ever a label.
 * @module
 */
import client from 'prom-client';
import { BACKEND_SOURCES, BACKEND_STATES, TERMINAL_STATUSES, type Executor, type PoolOverview, type Run, type RunRepository } from '@runload/core';
import type { HttpMetrics } from '@runload/http-adapter';
import type { Database } from '@runload/storage-adapter';

export interface RunloadMetrics extends HttpMetrics {
  /** The run repository, reporting the transitions that pass through it. */
  instrumentRuns(runs: RunRepository): RunRepository;
  /** The database handle, counting the statements sent through it. */
  instrumentDatabase(db: Database): Database;
  /** One webhook delivery attempt and what came of it (`delivered`, `retry`, `gave_up`…). */
  webhookAttempt(outcome: string): void;
}

export function createMetrics(sources: { db: () => Promise<Database>; executor: () => Promise<Executor>; pool?: () => Promise<PoolOverview> }): RunloadMetrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const requests = new client.Counter({ name: 'runload_http_requests_total', help: 'HTTP requests answered, by route and status', labelNames: ['method', 'route', 'status'], registers });
  const latency = new client.Histogram({
    name: 'runload_http_request_duration_seconds',
    help: 'HTTP request latency, by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const created = new client.Counter({ name: 'runload_runs_created_total', help: 'Runs created', registers });
  const finished = new client.Counter({ name: 'runload_runs_finished_total', help: 'Runs finished, by status and error code', labelNames: ['status', 'error_code'], registers });
  const dispatch = new client.Histogram({
    name: 'runload_dispatch_latency_seconds',
    help: 'From a run created to accepted by a backend',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
    registers,
  });
  const statements = new client.Counter({ name: 'runload_db_statements_total', help: 'SQL statements this instance sent to the database', registers });
  const deliveries = new client.Counter({ name: 'runload_webhook_deliveries_total', help: 'Webhook delivery attempts, by outcome', labelNames: ['outcome'], registers });
  const executed = new client.Counter({ name: 'runload_backend_runs_executed_total', help: 'Runs that finished on a backend', labelNames: ['backend'], registers });
  const gpuSeconds = new client.Counter({ name: 'runload_backend_gpu_seconds_total', help: 'GPU seconds used on a backend', labelNames: ['backend'], registers });
  new client.Gauge({
    name: 'runload_runs',
    help: 'Runs queued and running now (all instances)',
    labelNames: ['status'],
    registers,
    async collect() {
      const rows = (await (await sources.db())('runs').whereIn('status', ['queued', 'running']).groupBy('status').select('status').count({ n: '*' })) as { status: string; n: number | string }[];
      for (const status of ['queued', 'running']) this.set({ status }, Number(rows.find((r) => r.status === status)?.n ?? 0));
    },
  });
  new client.Gauge({
    name: 'runload_backend_prompts_held',
    help: 'Runs a backend holds now (all instances)',
    labelNames: ['backend'],
    registers,
    async collect() {
      this.reset();
      const rows = (await (await sources.db())('runs').where('status', 'running').whereNotNull('backend_id').groupBy('backend_id').select('backend_id').count({ n: '*' })) as { backend_id: string; n: number | string }[];
      for (const r of rows) this.set({ backend: r.backend_id }, Number(r.n));
    },
  });
  new client.Gauge({
    name: 'runload_backend_up',
    help: '1 when a backend answers its health probe',
    labelNames: ['backend'],
    registers,
    async collect() {
      const health = await (await sources.executor()).health();
      for (const b of health.backends) this.set({ backend: b.id }, b.healthy ? 1 : 0);
    },
  });

  if (sources.pool) poolGauges(sources.pool, registers);

  const observeFinished = (before: Run | null, after: Run) => {
    if (!TERMINAL_STATUSES.includes(after.status) || (before && TERMINAL_STATUSES.includes(before.status))) return;
    finished.inc({ status: after.status, error_code: after.error?.code ?? '' });
    if (after.backendId) {
      executed.inc({ backend: after.backendId });
      if (after.metrics.gpuSeconds) gpuSeconds.inc({ backend: after.backendId }, after.metrics.gpuSeconds);
    }
  };

  return {
    observeRequest({ method, route, status, seconds }) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    webhookAttempt(outcome) {
      deliveries.inc({ outcome });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    instrumentDatabase(db) {
      // knex reports every statement, those of its transactions included.
      db.on('query', () => statements.inc());
      return db;
    },
    instrumentRuns(runs) {
      return new Proxy(runs, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (property === 'create') {
            return async (run: Run) => {
              await target.create(run);
              created.inc();
            };
          }
          if (property === 'update') {
            return async (...args: Parameters<RunRepository['update']>) => {
              const after = await target.update(...args);
              if (after && args[1].status === 'running' && after.startedAt) dispatch.observe((after.startedAt.getTime() - after.createdAt.getTime()) / 1000);
              if (after && args[1].status) observeFinished(null, after);
              return after;
            };
          }
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
}

/**
 * The pool for operators and autoscalers: backends by state and source, the runs waiting for
 * capacity (scale up) or for capability (install something), and each backend's version and
 * capabilities hash (alert when backends differ). One report per scrape serves all three.
 */
function poolGauges(pool: () => Promise<PoolOverview>, registers: client.Registry[]): void {
  let report: ReturnType<PoolOverview['report']> | null = null;
  // The three gauges of one scrape share one report.
  const current = async () => {
    report ??= (await pool()).report(new Date());
    const r = report;
    setImmediate(() => (report = null));
    return r;
  };
  new client.Gauge({
    name: 'runload_backends',
    help: 'Backends of the pool, by state and source (all instances)',
    labelNames: ['state', 'source'],
    registers,
    async collect() {
      this.reset();
      const { backends } = await current();
      for (const state of BACKEND_STATES) for (const source of BACKEND_SOURCES) this.set({ state, source }, backends.filter((b) => b.backend.state === state && b.backend.source === source).length);
    },
  });
  new client.Gauge({
    name: 'runload_runs_waiting',
    help: 'Queued runs waiting: for capacity (a backend could run them, all such are full) or capability (no backend can)',
    labelNames: ['reason'],
    registers,
    async collect() {
      const r = await current();
      this.set({ reason: 'capacity' }, r.waitingForCapacity);
      this.set({ reason: 'capability' }, r.waitingForCapability);
    },
  });
  new client.Gauge({
    name: 'runload_backend_info',
    help: "A backend's ComfyUI version and capabilities hash (1 for each backend)",
    labelNames: ['backend', 'comfyui_version', 'capabilities_hash'],
    registers,
    async collect() {
      this.reset();
      for (const { backend } of (await current()).backends) this.set({ backend: backend.url, comfyui_version: backend.comfyuiVersion ?? '', capabilities_hash: backend.capabilitiesHash ?? '' }, 1);
    },
  });
}
