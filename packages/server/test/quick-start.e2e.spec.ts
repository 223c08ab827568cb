/** The README's quick start: `pnpm start` serves on the embedded defaults. */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { REPO_ROOT, tempDataDir } from './processes.js';

describe('pnpm start', function () {
  this.timeout(60_000);
  it('starts the server on SQLite and local files and answers /healthz', async () => {
    const data = tempDataDir();
    const child = spawn('pnpm', ['start'], {
      cwd: REPO_ROOT,
      env: { ...process.env, RUNLOAD_DATA_DIR: data.dir, RUNLOAD_PORT: '0', RUNLOAD_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 45_000);
        child.stdout?.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m?.[1]) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string; database: { ok: boolean }; limiter: { mode: string } };
      // No ComfyUI is reachable in the quick start: reads are served, so 200, but degraded.
      expect(health.status).to.equal('degraded');
      expect(health.database.ok).to.equal(true);
      expect(health.limiter.mode).to.equal('in-process');
    } finally {
      // pnpm runs node as its child: stop the whole process group.
      process.kill(-(child.pid as number), 'SIGTERM');
      data.remove();
    }
  });
});
