/**
 * The composition root in the test process with a fake clock and a real listening server on
 * port 0 (SQLite, local files, the in-process limiter or the fallback of a Redis that does not
 * answer): limit windows and leftovers, on real adapters.
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { FakeClock, InMemoryExecutor } from '@runload/core/testing';
import type { RunningHttpServer } from '@runload/http-adapter';
import { loadConfig, openRuntime, startServer, type Runtime } from '@runload/server';
import { REPO_ROOT, tempDataDir } from './processes.js';

const SAVE_AN_IMAGE = { '1': { class_type: 'SaveImage', inputs: { filename_prefix: 'a', images: ['2', 0] } }, '2': { class_type: 'EmptyImage', inputs: {} } };

const T0 = Date.UTC(2026, 6, 1, 9, 0, 0, 0);

describe('composition root with a fake clock', function () {
  this.timeout(60_000);
  const data = tempDataDir();
  const clock = new FakeClock(T0);
  let runtime: Runtime;
  let server: RunningHttpServer;
  let auth: Record<string, string>;
  let appVersionId: string;

  before(async () => {
    const config = loadConfig({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_PORT: '0', RUNLOAD_MAX_UPLOAD_BYTES: '4096' }, REPO_ROOT);
    runtime = await openRuntime(config, { dispatch: false, clock, executor: new InMemoryExecutor() });
    server = await startServer(runtime);
    const account = await runtime.api.accounts.create('Ada', 'starter');
    auth = { authorization: `Bearer ${(await runtime.api.apiKeys.create(account.id)).apiKey}` };
    appVersionId = (await runtime.api.apps.publish({ name: 'x', workflow: SAVE_AN_IMAGE })).id;
  });

  after(async () => {
    await runtime.close();
    data.remove();
  });

  const run = () => fetch(`${server.url}/api/v1/apps/${appVersionId}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"inputs":{}}' });

  it('refuses the 11th Starter run in a minute and the 101st in an hour, on SQLite', async () => {
    for (let i = 0; i < 10; i += 1) expect((await run()).status).to.equal(201);
    const eleventh = await run();
    expect(eleventh.status).to.equal(429);
    expect(eleventh.headers.get('x-ratelimit-minute-reset')).to.equal(String((T0 + 60_000) / 1000));
    for (let minute = 1; minute < 10; minute += 1) {
      clock.set(T0 + minute * 60_000);
      for (let i = 0; i < 10; i += 1) expect((await run()).status).to.equal(201);
    }
    clock.set(T0 + 10 * 60_000);
    const hundredAndFirst = await run();
    expect(hundredAndFirst.status).to.equal(429);
    expect(hundredAndFirst.headers.get('x-ratelimit-hour-remaining')).to.equal('0');
    expect(hundredAndFirst.headers.get('retry-after')).to.equal(String(50 * 60));
  });

  it('refuses the 121st request of a minute', async () => {
    clock.set(T0 + 2 * 3_600_000);
    for (let i = 0; i < 120; i += 1) expect((await fetch(`${server.url}/api/v1/account`, { headers: auth })).status).to.equal(200);
    const refused = await fetch(`${server.url}/api/v1/account`, { headers: auth });
    expect(refused.status).to.equal(429);
    expect(await refused.json()).to.deep.equal({ error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded: 120 requests per minute', retry_after: 60 } });
  });

  it('leaves nothing in the data directory after refused uploads', async () => {
    clock.set(T0 + 3 * 3_600_000);
    const upload = async (body: Buffer, name: string) => {
      const form = new FormData();
      form.append('file', new Blob([body]), name);
      return fetch(`${server.url}/api/v1/assets`, { method: 'POST', headers: auth, body: form });
    };
    expect((await upload(Buffer.alloc(10_000, 1), 'big.png')).status).to.equal(413);
    expect((await upload(Buffer.from('plain text, not a picture'), 'fake.png')).status).to.equal(415);
    const blobs = path.join(data.dir, 'blobs');
    expect(readdirSync(blobs)).to.deep.equal(['.staging']);
    expect(readdirSync(path.join(blobs, '.staging'))).to.deep.equal([]);
    expect(readdirSync(path.join(data.dir, 'uploads'))).to.deep.equal([]);
  });
});

describe('a limiter made mid-window (a restarted server, an instance that lost Redis)', function () {
  this.timeout(60_000);
  const data = tempDataDir();
  after(() => data.remove());

  it('starts its run windows from the runs written in them: after a restart, and when Redis stops answering', async () => {
    const T1 = Date.UTC(2026, 6, 1, 11, 6, 0);
    const config = loadConfig({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_PORT: '0', RUNLOAD_LOG_LEVEL: 'silent' }, REPO_ROOT);
    const open = async (at: number, redisUrl?: string) => {
      const clock = new FakeClock(at);
      const runtime = await openRuntime(redisUrl ? { ...config, redisUrl } : config, { dispatch: false, clock, executor: new InMemoryExecutor() });
      return { clock, runtime, server: await startServer(runtime) };
    };
    const first = await open(T1);
    const account = await first.runtime.api.accounts.create('Ada', 'starter');
    const auth = { authorization: `Bearer ${(await first.runtime.api.apiKeys.create(account.id)).apiKey}` };
    const app = (await first.runtime.api.apps.publish({ name: 'x', workflow: SAVE_AN_IMAGE })).id;
    const run = (url: string) => fetch(`${url}/api/v1/apps/${app}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"inputs":{}}' });
    for (let i = 0; i < 10; i += 1) expect((await run(first.server.url)).status).to.equal(201);
    await first.runtime.close();

    const second = await open(T1 + 30_000); // the same minute
    try {
      const refused = await run(second.server.url);
      expect(refused.status, 'the minute window still holds the 10 runs written before the restart').to.equal(429);
      expect(((await refused.json()) as { error: { message: string } }).error.message).to.equal('Rate limit exceeded: 10 runs per minute for the starter tier');
      second.clock.set(T1 + 60_000);
      const next = await run(second.server.url);
      expect(next.status).to.equal(201);
      expect(next.headers.get('x-ratelimit-hour-remaining'), '100 an hour, 11 used').to.equal('89');
    } finally {
      await second.runtime.close();
    }

    // The same with Redis configured and not answering: the limiter each instance falls back to
    // starts from the runs written, so an outage does not hand out the tier's runs again.
    const third = await open(T1 + 90_000, 'redis://127.0.0.1:1');
    try {
      const admitted = await run(third.server.url);
      expect(admitted.status).to.equal(201);
      expect(admitted.headers.get('x-ratelimit-hour-remaining'), '100 an hour, 12 used').to.equal('88');
      expect(admitted.headers.get('x-ratelimit-minute-remaining'), '10 a minute, 2 used').to.equal('8');
      const health = (await (await fetch(`${third.server.url}/healthz`)).json()) as { limiter: { mode: string } };
      expect(health.limiter.mode, 'limiting per instance while Redis is down').to.equal('local');
    } finally {
      await third.runtime.close();
    }
  });
});
