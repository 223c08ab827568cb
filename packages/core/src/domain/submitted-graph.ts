/**
 * A graph submitted as is (a Comfy API v2 job) rather than a published app: its asset references
 * (`{ "__type": "core/ASSET", "info": { "id" } }` where a file name would go), the graph with each
 * reference replaced by one fixed placeholder, and the hash that names that graph. Runs of the
 * same graph with other files share one hidden app version, so warm placement and the GPU
 * estimate carry over from one run to the next.
 * @module
 */
import { createHash } from 'node:crypto';
import { inputKey, type Workflow } from './app-version.js';
import { canonicalJson } from './canonical-json.js';
import { CoreError } from './errors.js';
import { isUuid } from './input-validation.js';
import { addNodeProblem, type NodeProblems } from './node-problems.js';
import { parseWorkflow } from './workflow.js';

/** What stands in the hidden version's graph where an asset was referenced (the run's input replaces it). */
export const ASSET_PLACEHOLDER = 'asset';

export interface AssetReference {
  readonly nodeId: string;
  readonly widget: string;
  /** `<nodeId>:<widget>`, the hidden version's input key. */
  readonly key: string;
  readonly assetId: string;
}

function isAssetReference(value: unknown): value is { __type: string; info?: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { __type?: unknown }).__type === 'core/ASSET';
}

/**
 * Reads a submitted graph: API format only (UI format is WORKFLOW_FORMAT_UI), every asset
 * reference well formed (MISSING_ASSET otherwise, naming each).
 * @throws CoreError WORKFLOW_FORMAT_UI, INVALID_WORKFLOW, MISSING_ASSET
 */
export function readSubmittedGraph(json: unknown): { graph: Workflow; references: AssetReference[] } {
  if (json !== null && typeof json === 'object' && Array.isArray((json as Record<string, unknown>)['nodes']) && Array.isArray((json as Record<string, unknown>)['links'])) {
    throw new CoreError('WORKFLOW_FORMAT_UI', 'The workflow is in UI format (it has "nodes" and "links"): export it with "Export (API)" and submit that graph');
  }
  const graph = parseWorkflow(json);
  const references: AssetReference[] = [];
  const malformed: NodeProblems = {};
  for (const [nodeId, node] of Object.entries(graph)) {
    for (const [widget, value] of Object.entries(node.inputs)) {
      if (!isAssetReference(value)) continue;
      const id = (value.info as { id?: unknown } | undefined)?.id;
      if (typeof id !== 'string' || !isUuid(id)) {
        addNodeProblem(malformed, nodeId, { field: widget, reason: 'malformed_asset_reference', message: 'a core/ASSET reference needs info.id, the id of one of your assets' });
        continue;
      }
      references.push({ nodeId, widget, key: inputKey(nodeId, widget), assetId: id.toLowerCase() });
    }
  }
  if (Object.keys(malformed).length > 0) {
    throw new CoreError('MISSING_ASSET', 'The workflow has malformed asset references', { details: { node_errors: malformed } });
  }
  return { graph, references };
}

/** The graph with every asset reference replaced by {@link ASSET_PLACEHOLDER}: the same for every file. */
export function withPlaceholders(graph: Workflow, references: readonly AssetReference[]): Workflow {
  const out = structuredClone(graph) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  for (const ref of references) {
    const node = out[ref.nodeId];
    if (node) node.inputs[ref.widget] = ASSET_PLACEHOLDER;
  }
  return out as Workflow;
}

/** Hex SHA-256 of the graph's canonical JSON: the name of its hidden app version. */
export function graphHash(graph: Workflow): string {
  return createHash('sha256').update(canonicalJson(graph)).digest('hex');
}
