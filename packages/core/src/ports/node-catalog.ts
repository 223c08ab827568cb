import type { NodeInfo } from '../domain/workflow.js';

/** Widget definitions of ComfyUI node classes, as `/object_info` reports them. */
export interface NodeCatalog {
  /**
   * The definitions known for these class types: from a reachable backend when there is one,
   * else from the definitions of ComfyUI's core nodes that ship with runload. Classes known to
   * neither are left out of the result.
   */
  describe(classTypes: readonly string[]): Promise<Record<string, NodeInfo>>;
}

export const NODE_CATALOG = Symbol.for('runload.core.NodeCatalog');
