import type { RunInputs, Workflow } from '@runload/core';

/**
 * Where a key `<nodeId>:<widgetName>` points in this workflow. Both parts may hold ':' (node ids
 * of flattened subgraphs such as `12:5`, a widget named `mode:x`), so the key is split where the
 * node exists and has that widget; failing that, where the node exists (a widget the node does
 * not list yet). Null when no node of the workflow matches.
 */
export function splitInputKey(key: string, workflow: Workflow): { nodeId: string; widget: string } | null {
  let fallback: { nodeId: string; widget: string } | null = null;
  for (let at = key.indexOf(':'); at !== -1; at = key.indexOf(':', at + 1)) {
    const nodeId = key.slice(0, at);
    const node = Object.hasOwn(workflow, nodeId) ? workflow[nodeId] : undefined;
    if (!node) continue;
    const widget = key.slice(at + 1);
    if (Object.hasOwn(node.inputs, widget)) return { nodeId, widget };
    fallback ??= { nodeId, widget };
  }
  return fallback;
}

/**
 * A run's inputs by node: `<nodeId>:<widgetName>` sets that node's widget (see {@link splitInputKey}).
 * @throws Error for a key that names no node of the workflow: an input is never silently dropped
 */
export function inputsByNode(inputs: Readonly<Record<string, unknown>>, workflow: Workflow): Map<string, Record<string, unknown>> {
  const byNode = new Map<string, Record<string, unknown>>();
  for (const [key, value] of Object.entries(inputs)) {
    const target = splitInputKey(key, workflow);
    if (!target) throw new Error(`input ${key} names no node of the workflow`);
    const widgets = byNode.get(target.nodeId) ?? {};
    widgets[target.widget] = value;
    byNode.set(target.nodeId, widgets);
  }
  return byNode;
}

/** The workflow with the run's inputs set (see {@link inputsByNode}). The caller's workflow is never changed. */
export function applyInputs(workflow: Workflow, inputs: RunInputs, overrides: Readonly<Record<string, string>> = {}): Workflow {
  const copy = structuredClone(workflow) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  for (const [nodeId, widgets] of inputsByNode({ ...inputs, ...overrides }, workflow)) {
    const node = copy[nodeId];
    if (node) Object.assign(node.inputs, widgets);
  }
  return copy;
}
