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
    },
  });
  const json = values.json === true;
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return positionals.length === 0 && !values.help ? 2 : 0;
  }
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
  if (CoreError.is(error) || error instanceof ConfigError) {
    const code = CoreError.is(error) ? error.code : 'CONFIG_ERROR';
    process.stderr.write(json ? `${JSON.stringify({ error: { code, message: error.message } })}\n` : `error: ${error.message}\n`);
    return 1;
  }
  process.stderr.write(`error: ${(error as Error).stack ?? String(error)}\n`);
  return 1;
}

const argv = process.argv.slice(2);
main(argv).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = report(error, argv.includes('--json'));
  },
);
