import type { RunInputs, Workflow } from '@runload/core';

/**
 * The workflow with the run's inputs set (`<nodeId>:<widgetName>` sets that node's widget).
 * Node ids may themselves contain ':' (flattened subgraphs), widget names do not, so the key is
 * split at its last ':'. The caller's workflow is never changed.
 */
export function applyInputs(workflow: Workflow, inputs: RunInputs, overrides: Readonly<Record<string, string>> = {}): Workflow {
  const copy = structuredClone(workflow) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  for (const [key, value] of Object.entries({ ...inputs, ...overrides })) {
    const at = key.lastIndexOf(':');
    const node = copy[key.slice(0, at)];
    if (node) node.inputs[key.slice(at + 1)] = value;
  }
  return copy;
}
