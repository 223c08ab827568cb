/**
 * The operator's calls to runload's admin API (`/api/v1/admin/…`, an admin token as Bearer), typed
 * with the shapes the admin API answers.
 * @module
 */

export interface Backend {
  readonly backend_id: string;
  readonly url: string;
  readonly source: 'static' | 'api' | 'registered' | 'dns';
  readonly state: 'active' | 'draining' | 'drained';
  readonly labels: Readonly<Record<string, string>>;
  readonly depth: number | null;
  readonly reachable: boolean;
  readonly held: number;
  readonly comfyui_version: string | null;
  readonly warm_app_versions: readonly string[];
  readonly runs_executed: number;
  readonly gpu_seconds: number;
}

export interface Pool {
  readonly backends: readonly Backend[];
  readonly queued: number;
  readonly running: number;
  readonly waiting_for_capacity: number;
  readonly waiting_for_capability: number;
}

export interface AdminAccount {
  readonly account_id: string;
  readonly name: string;
  readonly tier: string;
  readonly status: 'active' | 'suspended';
  readonly created_at: string;
}

export interface AdminKey {
  readonly key_id: string;
  readonly prefix: string;
  readonly name: string | null;
  readonly created_at: string;
  readonly last_used_at: string | null;
  readonly revoked_at: string | null;
}

export interface CreatedKey {
  readonly key_id: string;
  readonly api_key: string;
  readonly account_id: string;
}

export interface AdminRun {
  readonly run_id: string;
  readonly account_id: string;
  readonly app_version_id: string;
  readonly status: string;
  readonly created_at: string;
  readonly queue_position: number | null;
}

export interface Usage {
  readonly month: string;
  readonly accounts: readonly {
    readonly account_id: string;
    readonly name: string;
    readonly tier: string;
    readonly gpu_seconds: number;
    readonly runs: { readonly succeeded: number; readonly failed: number; readonly canceled: number; readonly expired: number };
  }[];
  readonly next_cursor: string | null;
}

export interface Tier {
  readonly name: string;
}

/** A refusal of the admin API, with its status and code when the body named one. */
export class AdminError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
  }
}

export class AdminApi {
  constructor(private readonly token: string) {}

  pool(signal?: AbortSignal): Promise<Pool> {
    return this.json('GET', '/pool', undefined, signal);
  }

  setBackendState(backendId: string, state: 'active' | 'draining'): Promise<Backend> {
    return this.json('PATCH', `/backends/${encodeURIComponent(backendId)}`, { state });
  }

  listAccounts(options: { limit?: number; cursor?: string | null; signal?: AbortSignal } = {}): Promise<{ accounts: AdminAccount[]; next_cursor: string | null }> {
    return this.json('GET', `/accounts${query({ limit: options.limit, cursor: options.cursor })}`, undefined, options.signal);
  }

  createAccount(body: { name: string; tier: string }): Promise<AdminAccount> {
    return this.json('POST', '/accounts', body);
  }

  updateAccount(accountId: string, body: { tier?: string; status?: 'active' | 'suspended' }): Promise<AdminAccount> {
    return this.json('PATCH', `/accounts/${encodeURIComponent(accountId)}`, body);
  }

  tiers(signal?: AbortSignal): Promise<{ tiers: Tier[] }> {
    return this.json('GET', '/tiers', undefined, signal);
  }

  listKeys(accountId: string, signal?: AbortSignal): Promise<{ keys: AdminKey[] }> {
    return this.json('GET', `/accounts/${encodeURIComponent(accountId)}/keys`, undefined, signal);
  }

  createKey(accountId: string, name?: string): Promise<CreatedKey> {
    return this.json('POST', `/accounts/${encodeURIComponent(accountId)}/keys`, name ? { name } : {});
  }

  async revokeKey(keyId: string): Promise<void> {
    await this.send('DELETE', `/keys/${encodeURIComponent(keyId)}`);
  }

  listRuns(options: { status: string; limit?: number; signal?: AbortSignal }): Promise<{ runs: AdminRun[]; next_cursor: string | null }> {
    return this.json('GET', `/runs${query({ status: options.status, limit: options.limit })}`, undefined, options.signal);
  }

  usage(month: string, signal?: AbortSignal): Promise<Usage> {
    return this.json('GET', `/usage${query({ month, limit: 100 })}`, undefined, signal);
  }

  /** The month's usage as the CSV a billing import reads. */
  async usageCsv(month: string): Promise<Blob> {
    return (await this.send('GET', `/usage${query({ month, limit: 100 })}`, undefined, undefined, 'text/csv')).blob();
  }

  private async json<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    return (await (await this.send(method, path, body, signal)).json()) as T;
  }

  private async send(method: string, path: string, body?: unknown, signal?: AbortSignal, accept = 'application/json'): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}`, Accept: accept };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`/api/v1/admin${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
    if (response.ok) return response;
    throw await refusal(response);
  }
}

function query(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null) search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Reads the three error forms: structured, plain, and the upload one. */
async function refusal(response: Response): Promise<AdminError> {
  const body = (await response.json().catch(() => null)) as { error?: unknown } | null;
  const error = body?.error;
  if (typeof error === 'string') return new AdminError(error, response.status, null);
  if (error && typeof error === 'object') {
    const { code, message } = error as { code?: string; message?: string };
    return new AdminError(`${code ?? response.status}: ${message ?? ''}`, response.status, code ?? null);
  }
  return new AdminError(`The server answered ${response.status}`, response.status, null);
}
