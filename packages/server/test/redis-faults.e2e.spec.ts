/**
 * Redis stopped and restarted under a load of requests: requests keep being served (limits fall
 * back to each instance's own), /healthz says so, and shared limits resume when Redis returns.
 * Uses a redis-server of its own on a spare port, so stopping it disturbs nothing else.
 */
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { waitFor } from '@runload/core/testing';
import { cliJson, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';

const haveRedis = spawnSync('redis-server', ['--version']).status === 0;
if (!haveRedis && process.env['CI'] === 'true') throw new Error('CI=true needs redis-server on the PATH');

/** A port nothing listens on now (a redis-server left over from a killed run may hold a fixed one). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A redis-server of its own on `port`; fails at once (with its words) if it exits before it is ready. */
function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let said = '';
    child.stdout?.on('data', (d: Buffer) => {
      said += d.toString();
      if (said.includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server on port ${port} exited (${code}) before it was ready: ${said.trim().split('\n').pop() ?? ''}`)));
  });
}

(haveRedis ? describe : describe.skip)('Redis faults', function () {
  this.timeout(60_000);
  const data = tempDataDir();
  let redis: ChildProcess;
  let server: ServerProcess;
  let auth: Record<string, string>;
  let port: number;

  before(async () => {
    port = await freePort();
    redis = await startRedis(port);
    const env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_REDIS_URL: `redis://127.0.0.1:${port}`, RUNLOAD_COMFYUI_URLS: 'http://127.0.0.1:9', RUNLOAD_LOG_LEVEL: 'silent' };
    const account = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', 'f', '--tier', 'ultra'], env);
    auth = { authorization: `Bearer ${(await cliJson<{ api_key: string }>(['keys', 'create', '--account', account.account_id], env)).api_key}` };
    server = await startServerProcess(env);
  });

  after(async () => {
    await server?.stop('SIGTERM');
    redis?.kill('SIGKILL');
    data.remove();
  });

  const limiterMode = async () => ((await (await fetch(`${server.url}/healthz`)).json()) as { limiter: { mode: string } }).limiter.mode;

  it('keeps serving while Redis is down, then shares limits again when it returns', async () => {
    expect(await limiterMode()).to.equal('redis');
    const timings: number[] = [];
    const load = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        const started = performance.now();
        const res = await fetch(`${server.url}/api/v1/account`, { headers: auth });
        timings.push(performance.now() - started);
        expect([200, 429]).to.include(res.status);
      }
    };
    await load(5);
    redis.kill('SIGKILL');
    await load(20);
    expect(await limiterMode()).to.equal('local');
    // Served from the local limiter: no request waited on the dead Redis for long.
    expect(Math.max(...timings.slice(5))).to.be.below(1000);
    redis = await startRedis(port);
    await waitFor(async () => (await limiterMode()) === 'redis', '/healthz to show the shared (redis) limiter again', { timeoutMs: 15_000, intervalMs: 200 });
    await load(3);
  });
});
