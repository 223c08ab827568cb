import type { NodeCatalog, NodeInfo } from '@runload/core';
import { BuiltinNodeCatalog } from './builtin-node-catalog.js';

/**
 * Node definitions from the first reachable backend's `/object_info` (exact types, bounds and
 * combo options of that server), falling back to ComfyUI's core nodes that ship with runload.
 */
export class ComfyUiNodeCatalog implements NodeCatalog {
  private readonly builtin = new BuiltinNodeCatalog();

  constructor(
    private readonly urls: readonly string[],
    private readonly timeoutMs = 5000,
  ) {}

  async describe(classTypes: readonly string[]): Promise<Record<string, NodeInfo>> {
    const fallback = await this.builtin.describe(classTypes);
    for (const url of this.urls) {
      try {
        const res = await fetch(`${url}/object_info`, { signal: AbortSignal.timeout(this.timeoutMs) });
        if (res.status !== 200) continue;
        const all = (await res.json()) as Record<string, NodeInfo>;
        const out: Record<string, NodeInfo> = { ...fallback };
        for (const type of classTypes) if (all[type]) out[type] = all[type] as NodeInfo;
        return out;
      } catch {
        // This backend is not reachable: try the next, then the shipped definitions.
      }
    }
    return fallback;
  }
}
