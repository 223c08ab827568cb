/**
 * The README's quick start, walkthrough and TypeScript client, run as written from a fresh clone
 * of this commit: install (step 1), `pnpm start` (step 2), `pnpm fake-comfyui` in a second
 * terminal, and in a third the walkthrough's shell block, then the client's: its install into a
 * project beside the clone, `client.ts` saved there, and its run with the walkthrough's key. Only
 * the ports differ: both servers listen on port 0 and `http://127.0.0.1:8080` becomes the address
 * the server printed.
 */
import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function block(readme: string, marker: RegExp): string {
  const found = marker.exec(readme);
  if (!found?.[1]) throw new Error(`README.md has no block matching ${marker}`);
  return found[1];
}

/** Starts a long-running command in its own process group and waits for its `listening on` line. */
function startListening(args: readonly string[], cwd: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn('pnpm', args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(out);
      if (found?.[1]) resolve({ child, url: found[1] });
    });
    child.on('exit', (code) => reject(new Error(`pnpm ${args.join(' ')} exited (${code}) before listening:\n${out}\n${err}`)));
  });
}

describe("the README's quick start and walkthrough from a fresh clone", function () {
  this.timeout(10 * 60_000);
  const work = mkdtempSync(path.join(tmpdir(), 'runload-clone-'));
  const clone = path.join(work, 'runload');
  const running: ChildProcess[] = [];

  after(() => {
    for (const child of running) {
      try {
        process.kill(-(child.pid as number), 'SIGTERM');
      } catch {
        // already gone
      }
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('installs, serves, and runs the walkthrough to a downloaded PNG', async () => {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    execFileSync('git', ['clone', '--quiet', '--no-checkout', ROOT, clone], { stdio: 'pipe' });
    execFileSync('git', ['checkout', '--quiet', commit], { cwd: clone, stdio: 'pipe' });
    const readme = readFileSync(path.join(clone, 'README.md'), 'utf8');

    // Step 1 as written, but for the global pnpm install when that pnpm is already there.
    const install = block(readme, /Step 1, install[^\n]*\n\n```sh\n([\s\S]*?)```/)
      .split('\n')
      .filter((line) => !(line.startsWith('npm i -g pnpm@') && execFileSync('pnpm', ['--version'], { encoding: 'utf8' }).trim() === line.split('@')[1]))
      .join('\n');
    execFileSync('bash', ['-euo', 'pipefail', '-c', install], { cwd: clone, stdio: 'pipe' });

    expect(block(readme, /Step 2, start the server[^\n]*\n\n```sh\n([\s\S]*?)```/).trim()).to.equal('pnpm start');
    expect(block(readme, /In a second one, start a fake ComfyUI[\s\S]*?```sh\n([\s\S]*?)```/).trim()).to.equal('pnpm fake-comfyui');
    const fake = await startListening(['fake-comfyui', '--port', '0'], clone, {});
    running.push(fake.child);
    const server = await startListening(['start'], clone, { RUNLOAD_PORT: '0', RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LOG_LEVEL: 'warn' });
    running.push(server.child);

    // One shell, as in the third terminal: the client's run uses the walkthrough's $KEY.
    const walkthrough = block(readme, /<!-- walkthrough -->\s*```sh\n([\s\S]*?)```/);
    const clientInstall = block(readme, /<!-- client: install -->\s*```sh\n([\s\S]*?)```/);
    const client = block(readme, /<!-- client -->\s*```ts\n([\s\S]*?)```/);
    const clientRun = block(readme, /<!-- client: run -->\s*```sh\n([\s\S]*?)```/);
    const script = [
      walkthrough,
      'echo "== walkthrough done"',
      clientInstall,
      `cat > client.ts <<'CLIENT_TS'\n${client}CLIENT_TS`,
      clientRun,
    ]
      .join('\n')
      .replaceAll('http://127.0.0.1:8080', server.url);
    let output: string;
    try {
      output = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: clone, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`the README's shell blocks failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
    }
    const [curl, typescript] = output.split('== walkthrough done\n') as [string, string];
    expect(curl).to.match(/rl_[0-9A-Za-z]{10}_… created /);
    // Step 4's answer is a line of its own, not run into the next output.
    expect(curl).to.match(/^\{"app_version_id":"[^"]+",.*"inputs":\[.*\]\}$/m);
    expect(curl).to.match(/^out\.png: PNG image data/m);
    expect(readFileSync(path.join(clone, 'out.png')).subarray(1, 4).toString('latin1')).to.equal('PNG');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' }), 'the walkthrough leaves the clone clean').to.equal('');
    // The client's run, in the project beside the clone: it follows the run to its output.
    expect(typescript).to.match(/^succeeded /m);
    expect(typescript).to.match(/^\d+ bytes$/m);
  });
});
