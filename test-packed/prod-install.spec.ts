/**
 * The standalone server from a production install: `pnpm deploy --prod` copies @runload/server
 * with its production dependencies only (no tsx, no sources), and the built `runload serve`
 * must start and answer there. The test kit's libraries (chai, mocha) are removed from that
 * install, so a production import of `@runload/core/testing` fails here.
 */
import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the built server from a production install', function () {
  this.timeout(5 * 60_000);
  const work = mkdtempSync(path.join(tmpdir(), 'runload-prod-'));
  const deployed = path.join(work, 'server');
  let server: ChildProcess | null = null;

  before(() => {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe' });
    execFileSync('pnpm', ['--filter', '@runload/console', 'build'], { cwd: ROOT, stdio: 'pipe' });
    execFileSync('pnpm', ['--filter', '@runload/server', 'deploy', '--prod', deployed], { cwd: ROOT, stdio: 'pipe' });
    const store = path.join(deployed, 'node_modules/.pnpm');
    for (const dir of readdirSync(store)) if (/^(chai|mocha)@/.test(dir)) rmSync(path.join(store, dir), { recursive: true, force: true });
  });

  after(() => {
    server?.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('holds no sources and no development tools', () => {
    expect(existsSync(path.join(deployed, 'src'))).to.equal(false);
    expect(readdirSync(path.join(deployed, 'node_modules/.pnpm')).filter((d) => /^(tsx|typescript|chai|mocha)@/.test(d))).to.deep.equal([]);
  });

  it('starts `runload serve`, answers /healthz, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [path.join(deployed, 'bin/runload.js'), 'serve'], {
      cwd: work,
      env: { PATH: process.env['PATH'] ?? '', RUNLOAD_PORT: '0', RUNLOAD_DATA_DIR: path.join(work, 'data'), RUNLOAD_COMFYUI_URLS: 'http://127.0.0.1:9', RUNLOAD_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server = child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /listening on (http:\/\/\S+)/.exec(out);
        if (found?.[1]) resolve(found[1]);
      });
      child.on('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${stderr}`)));
    });
    const health = await fetch(`${url}/healthz`);
    expect(health.status, stderr).to.equal(200);
    expect(((await health.json()) as { database: { ok: boolean } }).database.ok).to.equal(true);
    // The web console comes with the install, found through its package.
    const page = await fetch(`${url}/console`);
    expect(page.status, stderr).to.equal(200);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script, 'the page names its script').to.be.a('string');
    expect((await fetch(`${url}${script}`)).status).to.equal(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
    server = null;
  });
});
