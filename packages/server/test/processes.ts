/** Runs the CLI and the server as separate processes, as a user would. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI = path.join(REPO_ROOT, 'packages/server/src/cli/main.ts');
const NODE_ARGS = ['--conditions=@runload/source', '--import', 'tsx'];

export function tempDataDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runload-e2e-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** @param options.timeoutMs kill the command past this (a hang then reads as a failure, leaving no process behind) */
export function cli(args: readonly string[], env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...NODE_ARGS, CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: options.timeoutMs ?? 0 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function cliJson<T = Record<string, unknown>>(args: readonly string[], env: Record<string, string>): Promise<T> {
  const result = await cli([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** An account of `tier` and one API key of it, made by the CLI as an operator would: the key. */
export async function createAccountWithKey(env: Record<string, string>, name: string, tier: string): Promise<string> {
  const account = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', name, '--tier', tier], env);
  return (await cliJson<{ api_key: string }>(['keys', 'create', '--account', account.account_id], env)).api_key;
}

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `cli serve` and resolves once it prints `listening on http://…`. */
export function startServerProcess(env: Record<string, string>, script = CLI, args: readonly string[] = ['serve']): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...NODE_ARGS, script, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, RUNLOAD_HOST: '127.0.0.1', RUNLOAD_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          child,
          stderr: () => err,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening: ${err}`));
    });
  });
}
