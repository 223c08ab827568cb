import type { NodeCatalog, NodeInfo } from '@runload/core';
import { BUILTIN_NODE_DEFINITIONS } from './builtin-node-definitions.js';

/** The definitions of ComfyUI's core nodes that ship with runload. */
export class BuiltinNodeCatalog implements NodeCatalog {
  async describe(classTypes: readonly string[]): Promise<Record<string, NodeInfo>> {
    const out: Record<string, NodeInfo> = {};
    for (const type of classTypes) {
      const info = BUILTIN_NODE_DEFINITIONS[type];
      if (info) out[type] = info;
    }
    return out;
  }
}
