/**
 * The whole graph from the container, as `serve` builds it with Redis configured: every module
 * resolves, the server answers `/healthz` and `/metrics`, and shutdown closes every connection.
 */
import { expect } from 'chai';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { loadConfig, openRuntime, type Runtime } from '@runload/server';
import { REPO_ROOT, tempDataDir } from './processes.js';

const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if (!redisUrl && process.env['CI'] === 'true') throw new Error('CI=true but RUNLOAD_TEST_REDIS_URL is not set');

(redisUrl ? describe : describe.skip)('the composition root with every adapter', function () {
  this.timeout(30_000);
  const data = tempDataDir();
  let fake: FakeComfyUI;
  let runtime: Runtime;

  before(async () => {
    fake = await startFakeComfyUI({ port: 0 });
    const config = loadConfig({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_PORT: '0', RUNLOAD_REDIS_URL: redisUrl, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LOG_LEVEL: 'silent' }, REPO_ROOT);
    runtime = await openRuntime(config, { dispatch: true });
  });

  after(async () => {
    await runtime.close();
    await fake.close();
    data.remove();
  });

  it('starts the dispatcher, and one HTTP server however often it is asked for', async () => {
    const health = await runtime.health();
    expect(health.limiter.mode).to.equal('redis');
    expect(health.dispatcher).to.deep.equal({ running: true, in_flight: 0 });
    expect(health.backends.available).to.equal(true);
    const [first, second] = await Promise.all([runtime.listen(), runtime.listen()]);
    expect(second).to.equal(first);
  });

  it('serves /metrics in the Prometheus format without a key, counting requests by route', async () => {
    const server = await runtime.listen();
    expect((await fetch(`${server.url}/healthz`)).status).to.equal(200);
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain/);
    const body = await response.text();
    expect(body).to.match(/runload_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1/);
    expect(body).to.match(/runload_runs\{status="queued"\} 0/);
    expect(body).to.match(new RegExp(`runload_backend_up\\{backend="${fake.url.replace(/[.]/g, '\\.')}"\\} 1`));
    expect(body).to.contain('# TYPE runload_webhook_deliveries_total counter');
    expect(body).to.contain('process_cpu_user_seconds_total');
  });

  it('counts the SQL statements this instance sends, those of transactions included', async () => {
    const server = await runtime.listen();
    const sent = async () => Number(/^runload_db_statements_total (\d+)/m.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1]);
    // A scrape reads its gauges from the database: what one costs is measured first.
    const first = await sent();
    const second = await sent();
    await runtime.db.raw('select 1');
    await runtime.db.transaction(async (trx) => {
      await trx.raw('select 2');
      await trx.raw('select 3');
    });
    const third = await sent();
    // One statement, then BEGIN, two statements and COMMIT (the dispatcher may add a sweep's own).
    expect(third - second - (second - first)).to.be.at.least(5);
  });

  it('closes in order on shutdown: the server stops answering and the database is destroyed', async () => {
    const server = await runtime.listen();
    const db = runtime.db;
    // A statement still running when the close begins: the database closes once it is done, and
    // the close resolves only then (every part's stop is awaited, in order).
    let working = true;
    const work = db.transaction(async (trx) => {
      await trx.raw('select 1');
      await new Promise((resolve) => setTimeout(resolve, 200));
      working = false;
    });
    await runtime.close();
    expect(working, 'the close resolved while the database still had work').to.equal(false);
    await work;
    let refused: unknown = null;
    await fetch(`${server.url}/healthz`).catch((error: unknown) => (refused = error));
    expect(refused, 'the HTTP server still answers').to.be.instanceOf(Error);
    let destroyed: unknown = null;
    await db.raw('select 1').catch((error: unknown) => (destroyed = error));
    expect(destroyed, 'the database still answers').to.be.instanceOf(Error);
    let refusedListen: unknown = null;
    await runtime.listen().catch((error: unknown) => (refusedListen = error));
    expect(refusedListen, 'a closed runtime started a server').to.be.instanceOf(Error);
    expect((refusedListen as Error).message).to.equal('the runtime is closed: it cannot start an HTTP server');
    expect(runtime.close(), 'a second close is the same close').to.equal(runtime.close());
  });
});
