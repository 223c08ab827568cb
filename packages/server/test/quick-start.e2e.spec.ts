/** The README's quick start: `pnpm start` serves on the embedded defaults, and says which ComfyUI it found. */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { startFakeComfyUI } from '@runload/fake-comfyui';
import { REPO_ROOT, tempDataDir } from './processes.js';

/** `pnpm start` in its own process group, with what it wrote so far. */
function start(env: Record<string, string>): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  const child = spawn('pnpm', ['start'], { cwd: REPO_ROOT, env: { ...process.env, RUNLOAD_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return { child, stdout: () => out, stderr: () => err };
}

/** Resolves with the first match of `pattern` in `read()`, re-read as the process writes. */
function waitForOutput(child: ChildProcess, read: () => string, pattern: RegExp, ms = 45_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = pattern.exec(read());
      if (!found) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      resolve(found);
    };
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in:\n${read()}`)), ms);
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    check();
  });
}

describe('pnpm start', function () {
  this.timeout(60_000);
  it('starts the server on SQLite and local files and answers /healthz', async () => {
    const data = tempDataDir();
    const server = start({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_LOG_LEVEL: 'silent', RUNLOAD_COMFYUI_URLS: 'http://127.0.0.1:9' });
    try {
      const url = (await waitForOutput(server.child, server.stdout, /listening on (http:\/\/\S+)/))[1] as string;
      const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string; database: { ok: boolean }; limiter: { mode: string } };
      // No ComfyUI is reachable here: reads are served, so 200, but degraded.
      expect(health.status).to.equal('degraded');
      expect(health.database.ok).to.equal(true);
      expect(health.limiter.mode).to.equal('in-process');
    } finally {
      // pnpm runs node as its child: stop the whole process group.
      process.kill(-(server.child.pid as number), 'SIGTERM');
      data.remove();
    }
  });

  it('logs the ComfyUI it found with its version, or that none answered', async () => {
    const fake = await startFakeComfyUI({ port: 0 });
    const dirs = [tempDataDir(), tempDataDir()] as const;
    const found = start({ RUNLOAD_DATA_DIR: dirs[0].dir, RUNLOAD_COMFYUI_URLS: fake.url });
    const missing = start({ RUNLOAD_DATA_DIR: dirs[1].dir, RUNLOAD_COMFYUI_URLS: 'http://127.0.0.1:9' });
    try {
      const reachable = JSON.parse((await waitForOutput(found.child, found.stderr, /^.*"ComfyUI backend reachable".*$/m))[0]) as Record<string, unknown>;
      expect(reachable).to.include({ backend: fake.url, version: '0.3.64' });
      const unreachable = JSON.parse((await waitForOutput(missing.child, missing.stderr, /^.*"ComfyUI backend unreachable".*$/m))[0]) as Record<string, unknown>;
      expect(unreachable).to.include({ backend: 'http://127.0.0.1:9', level: 'warn' });
    } finally {
      for (const server of [found, missing]) process.kill(-(server.child.pid as number), 'SIGTERM');
      await fake.close();
      for (const dir of dirs) dir.remove();
    }
  });
});
