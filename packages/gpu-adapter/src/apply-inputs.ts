import type { RunInputs, Workflow } from '@runload/core';

/**
 * A run's inputs by node: `<nodeId>:<widgetName>` sets that node's widget. Node ids may themselves
 * contain ':' (flattened subgraphs), widget names do not, so the key is split at its last ':'.
 */
export function inputsByNode(inputs: Readonly<Record<string, unknown>>): Map<string, Record<string, unknown>> {
  const byNode = new Map<string, Record<string, unknown>>();
  for (const [key, value] of Object.entries(inputs)) {
    const at = key.lastIndexOf(':');
    const nodeId = key.slice(0, at);
    const widgets = byNode.get(nodeId) ?? {};
    widgets[key.slice(at + 1)] = value;
    byNode.set(nodeId, widgets);
  }
  return byNode;
}

/** The workflow with the run's inputs set (see {@link inputsByNode}). The caller's workflow is never changed. */
export function applyInputs(workflow: Workflow, inputs: RunInputs, overrides: Readonly<Record<string, string>> = {}): Workflow {
  const copy = structuredClone(workflow) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  for (const [nodeId, widgets] of inputsByNode({ ...inputs, ...overrides })) {
    const node = copy[nodeId];
    if (node) Object.assign(node.inputs, widgets);
  }
  return copy;
}
