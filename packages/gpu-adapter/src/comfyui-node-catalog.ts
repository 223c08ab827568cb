import type { ExecutorHealth, NodeCatalog, NodeInfo } from '@runload/core';
import { BuiltinNodeCatalog } from './builtin-node-catalog.js';

export interface ComfyUiNodeCatalogOptions {
  /** How long one backend's `/object_info` is reused; default 5 minutes (the server scans its model folders for it). */
  readonly cacheMs?: number;
  /** The pool's health, so healthy backends are asked first (e.g. the executor's `health`). */
  readonly health?: () => Promise<ExecutorHealth>;
}

interface Cached {
  readonly atMs: number;
  readonly info: Record<string, NodeInfo> | null;
}

/** A backend that did not answer is not asked again for this long. */
const FAILURE_CACHE_MS = 10_000;

/**
 * Node definitions from the first healthy backend's `/object_info` (exact types, bounds and combo
 * options of that server), falling back to ComfyUI's core nodes that ship with runload.
 */
export class ComfyUiNodeCatalog implements NodeCatalog {
  private readonly builtin = new BuiltinNodeCatalog();
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly urls: readonly string[],
    private readonly timeoutMs = 5000,
    private readonly options: ComfyUiNodeCatalogOptions = {},
  ) {}

  async describe(classTypes: readonly string[]): Promise<Record<string, NodeInfo>> {
    const fallback = await this.builtin.describe(classTypes);
    for (const url of await this.order()) {
      const all = await this.objectInfo(url);
      if (!all) continue;
      const out: Record<string, NodeInfo> = { ...fallback };
      for (const type of classTypes) if (all[type]) out[type] = all[type] as NodeInfo;
      return out;
    }
    return fallback;
  }

  private async order(): Promise<readonly string[]> {
    if (!this.options.health) return this.urls;
    const health = await this.options.health();
    const healthy = new Set(health.backends.filter((b) => b.healthy).map((b) => b.url));
    return [...this.urls].sort((a, b) => Number(healthy.has(b)) - Number(healthy.has(a)));
  }

  private async objectInfo(url: string): Promise<Record<string, NodeInfo> | null> {
    const now = Date.now();
    const cached = this.cache.get(url);
    if (cached && now - cached.atMs < (cached.info ? (this.options.cacheMs ?? 5 * 60_000) : FAILURE_CACHE_MS)) return cached.info;
    let info: Record<string, NodeInfo> | null = null;
    try {
      const res = await fetch(`${url}/object_info`, { signal: AbortSignal.timeout(this.timeoutMs) });
      if (res.status === 200) info = (await res.json()) as Record<string, NodeInfo>;
      else await res.body?.cancel();
    } catch {
      // Unreachable or not JSON: this backend is skipped for a while; the next one or the shipped definitions serve.
      info = null;
    }
    this.cache.set(url, { atMs: now, info });
    return info;
  }
}
