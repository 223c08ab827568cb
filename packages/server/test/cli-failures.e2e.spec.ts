/**
 * The CLI and the server when they cannot start: one line on stderr (JSON with --json), a non-zero
 * exit, nothing on stdout, and no process left running half-started.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { cli, tempDataDir } from './processes.js';

describe('CLI and server failing to start', function () {
  this.timeout(60_000);
  const data = tempDataDir();
  after(() => data.remove());
  const env = (extra: Record<string, string> = {}) => ({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: '', RUNLOAD_LOG_LEVEL: 'silent', ...extra });

  it('serve exits 1 with one line when its port is taken, instead of dispatching runs with no API', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const { port } = taken.address() as net.AddressInfo;
      const result = await cli(['serve'], env({ RUNLOAD_PORT: String(port) }));
      expect(result.code).to.equal(1);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.equal(`error: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  it('a command with --json on an unreachable database prints nothing on stdout and one JSON error last on stderr', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((r) => closed.close(r)); // nothing listens there now
    const result = await cli(['migrate', '--json'], env({ RUNLOAD_DATABASE_URL: `postgres://127.0.0.1:${port}/x` }));
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    const last = result.stderr.trim().split('\n').at(-1) ?? '';
    expect(JSON.parse(last)).to.deep.equal({ error: { code: 'ECONNREFUSED', message: `connect ECONNREFUSED 127.0.0.1:${port}` } });
  });

  it('names a data directory that is a file in one line, without a stack', async () => {
    const file = path.join(data.dir, 'not-a-dir');
    writeFileSync(file, 'x');
    const result = await cli(['accounts', 'list'], env({ RUNLOAD_DATA_DIR: file }));
    expect(result.code).to.equal(1);
    expect(result.stderr.trim().split('\n')).to.have.length(1);
    expect(result.stderr).to.match(/^error: ENOTDIR: not a directory/);
  });

  it('serve with a data directory under /proc exits 1 in one line instead of hanging at start', async function () {
    // Node's own recursive mkdir retries there without end: every directory under /proc refuses children.
    if (process.platform !== 'linux') this.skip();
    const result = await cli(['serve'], env({ RUNLOAD_DATA_DIR: '/proc/runload-data/here' }), { timeoutMs: 20_000 });
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.equal("error: ENOENT: no such file or directory, mkdir '/proc/runload-data'\n");
  });

  it('answers no command with the usage on stderr and exit 2, stdout empty', async () => {
    const result = await cli(['--json'], env());
    expect(result.code).to.equal(2);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.match(/^no command given\n\nusage: runload <command>/);
  });
});
