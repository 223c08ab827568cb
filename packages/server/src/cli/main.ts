/**
 * `pnpm cli <command>`: the operator's interface. With `--json` exactly one JSON object goes
 * to stdout; logs and errors go to stderr, errors with a non-zero exit.
 * @module
 */
import { parseArgs } from 'node:util';
import { CoreError } from '@runload/core';
import { ConfigError, loadConfig } from '../config.js';
import { openRuntime } from '../runtime.js';
import { serve } from '../serve.js';
import { runCommand, USAGE, UsageError } from './commands.js';

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      name: { type: 'string' },
      tier: { type: 'string' },
      account: { type: 'string' },
      workflow: { type: 'string' },
      app: { type: 'string' },
      expose: { type: 'string' },
      rotate: { type: 'boolean' },
      // The pool as data.
      label: { type: 'string', multiple: true },
      depth: { type: 'string' },
      force: { type: 'boolean' },
      'auth-header': { type: 'string' },
      'basic-auth': { type: 'string' },
      require: { type: 'string' },
      scopes: { type: 'string' },
    },
  });
  const json = values.json === true;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // No command is a usage error: on stderr, so stdout stays empty (or one JSON object with --json).
  if (positionals.length === 0) throw new UsageError('no command given');
  const config = loadConfig();
  if (positionals[0] === 'serve') {
    await serve(config);
    return -1;
  }
  const runtime = await openRuntime(config, { dispatch: false });
  try {
    if (positionals[0] === 'migrate') {
      // openRuntime has migrated the database already.
      print(json, { migrated: true }, `database migrated (${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`})`);
      return 0;
    }
    const result = await runCommand(runtime.api, positionals, values);
    print(json, result.json, result.text);
    return 0;
  } finally {
    await runtime.close();
  }
}

function print(json: boolean, object: Record<string, unknown>, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(object)}\n` : `${text}\n`);
}

function report(error: unknown, json: boolean): number {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith?.('ERR_PARSE_ARGS')) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  // One line naming the failure, with its code: ours (a refused command, a bad setting) or the
  // system's (a port taken, a database unreachable, a data directory that is a file). The stack of
  // an unexpected one only with RUNLOAD_LOG_LEVEL=debug.
  const expected = CoreError.is(error) || error instanceof ConfigError;
  const message = error instanceof Error ? error.message : String(error);
  const own = (error as { code?: unknown }).code;
  // A value the command cannot use (an unknown tier) is the INVALID_REQUEST the admin API answers too.
  const code = error instanceof ConfigError ? 'CONFIG_ERROR' : own === 'INVALID_VALUE' ? 'INVALID_REQUEST' : typeof own === 'string' ? own : 'UNEXPECTED_ERROR';
  const stack = !expected && process.env['RUNLOAD_LOG_LEVEL'] === 'debug' && error instanceof Error ? `\n${error.stack}` : '';
  process.stderr.write(json ? `${JSON.stringify({ error: { code, message } })}\n` : `error: ${message}${stack}\n`);
  return 1;
}

const argv = process.argv.slice(2);
main(argv).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    // Exits at once: a failed start may leave timers or a connection pool that would keep the
    // process alive without serving (stderr is written synchronously to a file or a pipe).
    process.exit(report(error, argv.includes('--json')));
  },
);
