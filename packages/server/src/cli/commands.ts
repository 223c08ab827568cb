/**
 * The operator's commands. Each returns the JSON object that `--json` prints and
 * a line for people.
 * @module
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CLI_AUTHOR, CoreError, parseLabels, type AdminToken, type RunloadApi } from '@runload/core';
import { presentAdminKey } from '@runload/http-adapter';
import { runBackendCommand } from './backend-commands.js';
import type { CommandResult, Flags } from './command-result.js';
import { UsageError } from './usage-error.js';
import { presentAccount, presentAppVersion } from './present.js';

export type { CommandResult, Flags } from './command-result.js';

export { UsageError };

function flag(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required`);
  return value;
}

function arg(args: readonly string[], index: number, what: string): string {
  const value = args[index];
  if (!value) throw new UsageError(`${what} is required`);
  return value;
}

async function readWorkflow(file: string): Promise<unknown> {
  const full = path.resolve(process.cwd(), file);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read workflow file ${full}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CoreError('INVALID_WORKFLOW', `${full} is not valid JSON: ${(error as Error).message}`);
  }
}

export async function runCommand(api: RunloadApi, words: readonly string[], flags: Flags): Promise<CommandResult> {
  const [group, action, ...rest] = words;
  const account = (a: Parameters<typeof presentAccount>[0]) => {
    const json = presentAccount(a);
    return { json, text: `account ${a.id} "${a.name}" tier=${a.tier} status=${a.status}` };
  };
  switch (`${group} ${action}`) {
    case 'accounts create':
      return account(await api.accounts.create(flag(flags, 'name'), flag(flags, 'tier'), CLI_AUTHOR));
    case 'accounts suspend':
      return account(await api.accounts.suspend(arg(rest, 0, 'ACCOUNT_ID'), CLI_AUTHOR));
    case 'accounts unsuspend':
      return account(await api.accounts.unsuspend(arg(rest, 0, 'ACCOUNT_ID'), CLI_AUTHOR));
    case 'accounts set-tier':
      return account(await api.accounts.setTier(arg(rest, 0, 'ACCOUNT_ID'), arg(rest, 1, 'TIER'), CLI_AUTHOR));
    case 'accounts list': {
      const accounts = (await api.accounts.list()).map(presentAccount);
      return { json: { accounts }, text: accounts.map((a) => `${a.account_id} ${a.tier} ${a.status} ${a.name}`).join('\n') };
    }
    case 'accounts webhook-secret': {
      const id = arg(rest, 0, 'ACCOUNT_ID');
      const { account, secret } = flags['rotate'] === true ? await api.webhookSecrets.rotate(id) : await api.webhookSecrets.show(id);
      return { json: { account_id: account.id, webhook_secret: secret }, text: `webhook secret of account ${account.id}\n${secret}` };
    }
    case 'keys create': {
      const name = typeof flags['name'] === 'string' && flags['name'].length > 0 ? flags['name'] : null;
      const issued = await api.apiKeys.create(flag(flags, 'account'), CLI_AUTHOR, name);
      return {
        json: { key_id: issued.key.id, api_key: issued.apiKey, account_id: issued.key.accountId },
        text: `key ${issued.key.id} for account ${issued.key.accountId}\n${issued.apiKey}\n(shown once: store it now)`,
      };
    }
    case 'keys list': {
      const keys = (await api.apiKeys.list(flag(flags, 'account'))).map(presentAdminKey);
      return { json: { keys }, text: keys.map((k) => `${k.key_id} rl_${k.prefix}_… created ${k.created_at}${k.revoked_at ? ` revoked ${k.revoked_at}` : ''}`).join('\n') };
    }
    case 'keys revoke': {
      const key = await api.apiKeys.revoke(arg(rest, 0, 'KEY_ID'), CLI_AUTHOR);
      return { json: { key_id: key.id, revoked: true }, text: `key ${key.id} revoked` };
    }
    case 'apps publish': {
      const expose = typeof flags['expose'] === 'string' ? flags['expose'].split(',').map((s) => s.trim()).filter(Boolean) : undefined;
      const appId = typeof flags['app'] === 'string' ? flags['app'] : undefined;
      const requireLabels = typeof flags['require'] === 'string' ? parseLabels([flags['require']]) : undefined;
      const version = await api.apps.publish({
        name: flag(flags, 'name'),
        workflow: await readWorkflow(flag(flags, 'workflow')),
        ...(appId ? { appId } : {}),
        ...(expose ? { expose } : {}),
        ...(requireLabels ? { requireLabels } : {}),
      }, CLI_AUTHOR);
      const json = presentAppVersion(version);
      const inputs = json.inputs.map((i) => `  ${i.key} ${i.type} = ${JSON.stringify(i.default)}`).join('\n');
      return { json, text: `app ${version.appId} version ${version.id}\n${inputs}` };
    }
    case 'apps delete': {
      const version = await api.apps.delete(arg(rest, 0, 'APP_VERSION_ID'), CLI_AUTHOR);
      return { json: { app_version_id: version.id, deleted: true }, text: `app version ${version.id} deleted` };
    }
    case 'apps list': {
      const apps = (await api.apps.list()).map(presentAppVersion);
      return { json: { apps }, text: apps.map((a) => `${a.app_version_id} ${a.name}${a.deleted ? ' (deleted)' : ''}`).join('\n') };
    }
    case 'backends list':
    case 'backends add':
    case 'backends drain':
    case 'backends activate':
    case 'backends remove':
      return runBackendCommand(api, action as string, rest, flags);
    // Admin tokens for the admin API.
    case 'admin-tokens create': {
      const scopes = flag(flags, 'scopes').split(',').map((s) => s.trim()).filter(Boolean);
      const issued = await api.adminTokens.create(flag(flags, 'name'), scopes, CLI_AUTHOR);
      return {
        json: { token_id: issued.token.id, token: issued.secret, name: issued.token.name, scopes: issued.token.scopes },
        text: `admin token ${issued.token.id} "${issued.token.name}" scopes=${issued.token.scopes.join(',')}\n${issued.secret}\n(shown once: store it now)`,
      };
    }
    case 'admin-tokens list': {
      const tokens = (await api.adminTokens.list()).map(presentAdminToken);
      return {
        json: { tokens },
        text: tokens.map((t) => `${t.token_id} rladm_${t.prefix}_… ${t.name} scopes=${t.scopes.join(',')}${t.revoked_at ? ` revoked ${t.revoked_at}` : ''}`).join('\n'),
      };
    }
    case 'admin-tokens revoke': {
      const token = await api.adminTokens.revoke(arg(rest, 0, 'TOKEN_ID'), CLI_AUTHOR);
      return { json: { token_id: token.id, revoked: true }, text: `admin token ${token.id} revoked` };
    }
    default:
      throw new UsageError(`unknown command "${words.join(' ')}"`);
  }
}

function presentAdminToken(t: AdminToken) {
  return {
    token_id: t.id,
    name: t.name,
    scopes: [...t.scopes],
    prefix: t.prefix,
    created_at: t.createdAt.toISOString(),
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
    revoked_at: t.revokedAt?.toISOString() ?? null,
  };
}

export const USAGE = `usage: runload <command> [--json]   (in a clone: pnpm exec runload … or pnpm cli …)

  serve                                         start the HTTP server
  migrate                                       create or upgrade the database
  accounts create --name NAME --tier TIER       starter|plus|max|ultra, or a tier of the limits file
  accounts suspend ID | accounts unsuspend ID | accounts set-tier ID TIER | accounts list
  accounts webhook-secret ID [--rotate]        the secret that signs the account's webhooks
  keys create --account ID [--name NAME]        prints the API key (shown once)
  keys list --account ID                        ids, prefixes, names, created, last used, revoked (never secrets)
  keys revoke KEY_ID
  apps publish --name NAME --workflow FILE [--app APP_ID] [--expose KEY,KEY] [--require k=v[,k=v]]
  apps delete APP_VERSION_ID
  apps list
  backends list                                 the pool: state, reachability, runs held, versions
  backends add URL [--label k=v]… [--depth N] [--auth-header 'Name: value' | --basic-auth user:password]
  backends drain ID|URL | backends activate ID|URL
  backends remove ID|URL [--force]              --force: runs it holds are dispatched again
  admin-tokens create --name NAME --scopes S[,S]   prints the admin token (shown once); scopes:
                                                accounts, apps, backends, backends:register, usage, read, *
  admin-tokens list                             ids, names, scopes, prefixes, last use (never secrets)
  admin-tokens revoke TOKEN_ID

Configuration comes from RUNLOAD_* environment variables (see docs/operations.md).`;
