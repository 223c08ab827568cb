/** `pnpm fake-comfyui` as a process: its port option, and a taken port reported in one line. */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/main.ts');

function runMain(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=@runload/source', '--import', 'tsx', MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    // A fake that listens has shown what it should: stop it.
    if (stdout.includes('listening on')) child.kill('SIGTERM');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('the fake ComfyUI process', function () {
  this.timeout(30_000);
  let taken: Server;
  let takenPort: number;

  before(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    takenPort = (taken.address() as { port: number }).port;
  });
  after(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('listens on the port --port names and prints where', async () => {
    const { stdout } = await runMain(['--port', '0']);
    expect(stdout).to.match(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/);
  });

  it('reports a taken port in one line, exit code 1, without a stack', async () => {
    const { code, stdout, stderr } = await runMain(['--port', String(takenPort)]);
    expect(code).to.equal(1);
    expect(stdout).to.equal('');
    expect(stderr).to.equal(`fake-comfyui: port ${takenPort} on 127.0.0.1 is taken (EADDRINUSE); choose another with --port N (0 picks a free one)\n`);
  });

  it('refuses an unknown option or a port that is not a number as a usage error (exit code 2)', async () => {
    for (const args of [['--bogus'], ['--port', 'eighty']]) {
      const { code, stderr } = await runMain(args);
      expect(code, args.join(' ')).to.equal(2);
      expect(stderr.trim().split('\n'), args.join(' ')).to.have.length(1);
    }
  });
});
