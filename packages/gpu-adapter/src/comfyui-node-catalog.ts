/**
 * Node definitions over the whole pool: the `/object_info` of every reachable backend, merged
 * (a class any backend has is known; a COMBO lists the options of every backend, so a model
 * installed on one server only is a valid choice), falling back to ComfyUI's core nodes that ship
 * with runload for classes no backend answered for.
 * @module
 */
import type { BackendCredentials, ExecutorHealth, NodeCatalog, NodeInfo } from '@runload/core';
import { authHeaderOf, authHeaders } from './backend-auth.js';
import { BuiltinNodeCatalog } from './builtin-node-catalog.js';

/** A backend the catalog reads, with its credentials. */
export interface CatalogBackend {
  readonly url: string;
  readonly auth?: BackendCredentials | null;
}

export interface ComfyUiNodeCatalogOptions {
  /** How long one backend's `/object_info` is reused; default 5 minutes (the server scans its model folders for it). */
  readonly cacheMs?: number;
  /** The pool's health: backends its probes found unreachable are not asked (unless none is reachable). */
  readonly health?: () => Promise<ExecutorHealth>;
}

interface Cached {
  readonly atMs: number;
  readonly info: Record<string, NodeInfo> | null;
}

/** A backend that did not answer is not asked again for this long. */
const FAILURE_CACHE_MS = 10_000;

export class ComfyUiNodeCatalog implements NodeCatalog {
  private readonly builtin = new BuiltinNodeCatalog();
  private readonly cache = new Map<string, Cached>();
  private readonly backends: () => Promise<readonly CatalogBackend[]>;

  constructor(
    /** The pool: fixed URLs, or read each time (the registry's backends). */
    backends: readonly string[] | (() => Promise<readonly CatalogBackend[]>),
    private readonly timeoutMs = 5000,
    private readonly options: ComfyUiNodeCatalogOptions = {},
  ) {
    this.backends = typeof backends === 'function' ? backends : async () => backends.map((url) => ({ url }));
  }

  async describe(classTypes: readonly string[]): Promise<Record<string, NodeInfo>> {
    const fallback = await this.builtin.describe(classTypes);
    const infos = (await Promise.all((await this.order()).map((b) => this.objectInfo(b)))).filter((i): i is Record<string, NodeInfo> => i !== null);
    if (infos.length === 0) return fallback;
    const out: Record<string, NodeInfo> = { ...fallback };
    for (const type of classTypes) {
      const known = infos.map((info) => info[type]).filter((i): i is NodeInfo => i !== undefined);
      if (known.length > 0) out[type] = known.reduce(mergeNodeInfo);
    }
    return out;
  }

  private async order(): Promise<readonly CatalogBackend[]> {
    const backends = await this.backends();
    if (!this.options.health) return backends;
    const health = await this.options.health();
    const healthy = new Set(health.backends.filter((b) => b.healthy).map((b) => b.url));
    const reachable = backends.filter((b) => healthy.has(b.url));
    return reachable.length > 0 ? reachable : backends;
  }

  private async objectInfo(backend: CatalogBackend): Promise<Record<string, NodeInfo> | null> {
    const now = Date.now();
    const cached = this.cache.get(backend.url);
    if (cached && now - cached.atMs < (cached.info ? (this.options.cacheMs ?? 5 * 60_000) : FAILURE_CACHE_MS)) return cached.info;
    let info: Record<string, NodeInfo> | null = null;
    try {
      const res = await fetch(`${backend.url}/object_info`, { headers: authHeaders(authHeaderOf(backend.auth)), signal: AbortSignal.timeout(this.timeoutMs) });
      if (res.status === 200) info = (await res.json()) as Record<string, NodeInfo>;
      else await res.body?.cancel();
    } catch {
      // Unreachable or not JSON: this backend is skipped for a while; the others or the shipped definitions serve.
      info = null;
    }
    this.cache.set(backend.url, { atMs: now, info });
    return info;
  }
}

type Spec = readonly unknown[];

/** One class as two backends describe it: the first's types and bounds, every COMBO's options of both. */
function mergeNodeInfo(a: NodeInfo, b: NodeInfo): NodeInfo {
  const merge = (x: Record<string, unknown> | undefined, y: Record<string, unknown> | undefined) => {
    if (!x || !y) return x ?? y;
    const out: Record<string, unknown> = { ...y, ...x };
    for (const [name, spec] of Object.entries(x)) if (y[name] !== undefined) out[name] = mergeSpec(spec as Spec, y[name] as Spec);
    return out;
  };
  const required = merge(a.input?.required, b.input?.required);
  const optional = merge(a.input?.optional, b.input?.optional);
  return { ...b, ...a, input: { ...(required ? { required } : {}), ...(optional ? { optional } : {}) } } as NodeInfo;
}

function mergeSpec(a: Spec, b: Spec): Spec {
  if (!Array.isArray(a) || !Array.isArray(b)) return a;
  const [typeA, optsA] = a as [unknown, Record<string, unknown> | undefined];
  const [typeB, optsB] = b as [unknown, Record<string, unknown> | undefined];
  // The list form: [[options], {…}].
  if (Array.isArray(typeA) && Array.isArray(typeB)) return [union(typeA, typeB), ...a.slice(1)];
  // The COMBO form: ['COMBO', { options: [...] }].
  if (typeA === 'COMBO' && typeB === 'COMBO' && Array.isArray(optsA?.['options']) && Array.isArray(optsB?.['options'])) {
    return ['COMBO', { ...optsA, options: union(optsA['options'] as unknown[], optsB['options'] as unknown[]) }, ...a.slice(2)];
  }
  return a;
}

function union(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  return [...new Set([...a, ...b])];
}
