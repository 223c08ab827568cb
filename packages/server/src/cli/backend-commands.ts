/**
 * `backends …`: the operator's commands on the pool. Credentials given here are stored and
 * never printed (`has_auth: true` says they exist).
 * @module
 */
import { parseCredentials, parseLabels, type RunloadApi } from '@runload/core';
import { presentBackend } from '@runload/http-adapter';
import type { CommandResult, Flags } from './command-result.js';
import { UsageError } from './usage-error.js';

type Presented = ReturnType<typeof presentBackend>;

function describe(b: Presented): string {
  const labels = Object.entries(b.labels).map(([k, v]) => `${k}=${v}`).join(',');
  const reach = b.reachable === null ? 'not seen yet' : b.reachable ? 'reachable' : 'unreachable';
  return `${b.backend_id} ${b.url} ${b.state} ${b.source} ${reach} held=${b.held}${b.depth !== null ? `/${b.depth}` : ''}${labels ? ` labels=${labels}` : ''}${b.comfyui_version ? ` comfyui=${b.comfyui_version}` : ''}${b.has_auth ? ' (with credentials)' : ''}`;
}

function one(b: Presented): CommandResult {
  return { json: b, text: describe(b) };
}

function target(rest: readonly string[]): string {
  const value = rest[0];
  if (!value) throw new UsageError('ID|URL is required');
  return value;
}

function depthOf(flags: Flags): number | null {
  const raw = flags['depth'];
  if (raw === undefined) return null;
  const depth = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new UsageError('--depth must be a whole number');
  return depth;
}

function stringOrUndefined(value: Flags[string]): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export async function runBackendCommand(api: RunloadApi, action: string, rest: readonly string[], flags: Flags): Promise<CommandResult> {
  switch (action) {
    case 'list': {
      const backends = (await api.backends.list()).map(presentBackend);
      return { json: { backends }, text: backends.length === 0 ? 'no backend in the pool' : backends.map(describe).join('\n') };
    }
    case 'add': {
      const labels = flags['label'];
      const auth = parseCredentials({ header: stringOrUndefined(flags['auth-header']), basic: stringOrUndefined(flags['basic-auth']) });
      return one(
        presentBackend(
          await api.backends.add({
            url: target(rest),
            labels: parseLabels(Array.isArray(labels) ? labels : typeof labels === 'string' ? [labels] : []),
            depth: depthOf(flags),
            auth,
          }),
        ),
      );
    }
    case 'drain':
      return one(presentBackend(await api.backends.drain(target(rest))));
    case 'activate':
      return one(presentBackend(await api.backends.activate(target(rest))));
    case 'remove': {
      const removed = presentBackend(await api.backends.remove(target(rest), { force: flags['force'] === true }));
      return { json: { ...removed, removed: true }, text: `backend ${removed.backend_id} ${removed.url} removed` };
    }
    default:
      throw new UsageError(`unknown command "backends ${action}"`);
  }
}
