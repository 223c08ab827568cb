import type { NodeInfo } from '../domain/workflow.js';
import type { NodeCatalog } from '../ports/node-catalog.js';

/** A node catalog over a fixed table of definitions (empty by default: inputs are typed from literals). */
export class StaticNodeCatalog implements NodeCatalog {
  constructor(private readonly definitions: Readonly<Record<string, NodeInfo>> = {}) {}

  async describe(classTypes: readonly string[]): Promise<Record<string, NodeInfo>> {
    const out: Record<string, NodeInfo> = {};
    for (const type of classTypes) {
      const info = this.definitions[type];
      if (info) out[type] = info;
    }
    return out;
  }
}
