/**
 * The pool's part of the admin API (`/api/v1/admin/pool`, `/api/v1/admin/backends/{id}`), typed
 * with the shapes it answers; the typed admin client has no pool calls yet.
 * @module
 */

export interface Backend {
  readonly backend_id: string;
  readonly url: string;
  readonly source: 'static' | 'api' | 'registered' | 'dns';
  readonly state: 'active' | 'draining' | 'drained';
  readonly labels: Readonly<Record<string, string>>;
  readonly depth: number | null;
  /** What the instances last saw; null until one probed it. */
  readonly reachable: boolean | null;
  readonly has_auth: boolean;
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

/** A refusal of the pool routes, with its status and code when the body named one. */
export class PoolError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
  }
}

export class PoolApi {
  constructor(private readonly token: string) {}

  pool(signal?: AbortSignal): Promise<Pool> {
    return this.json('GET', '/pool', undefined, signal);
  }

  setBackendState(backendId: string, state: 'active' | 'draining'): Promise<Backend> {
    return this.json('PATCH', `/backends/${encodeURIComponent(backendId)}`, { state });
  }

  private async json<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    return (await (await this.send(method, path, body, signal)).json()) as T;
  }

  private async send(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}`, Accept: 'application/json' };
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

/** Reads the three error forms: structured, plain, and the upload one. */
async function refusal(response: Response): Promise<PoolError> {
  const body = (await response.json().catch(() => null)) as { error?: unknown } | null;
  const error = body?.error;
  if (typeof error === 'string') return new PoolError(error, response.status, null);
  if (error && typeof error === 'object') {
    const { code, message } = error as { code?: string; message?: string };
    return new PoolError(`${code ?? response.status}: ${message ?? ''}`, response.status, code ?? null);
  }
  return new PoolError(`The server answered ${response.status}`, response.status, null);
}
