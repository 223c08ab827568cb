/**
 * Problems found in a workflow, by node, as an error's `details.node_errors` reports them.
 * @module
 */

/** A problem of one node. */
export interface NodeProblem {
  readonly field: string | null;
  readonly reason: string;
  readonly message: string;
}

export type NodeProblems = Record<string, NodeProblem[]>;

export function addNodeProblem(problems: NodeProblems, nodeId: string, problem: NodeProblem): void {
  (problems[nodeId] ??= []).push(problem);
}

/** The first problem found (its node's first), and how many nodes have any; null when none has. */
export function firstNodeProblem(problems: NodeProblems): { readonly nodeId: string; readonly problem: NodeProblem; readonly nodes: number } | null {
  const nodes = Object.keys(problems);
  const nodeId = nodes[0];
  const problem = nodeId === undefined ? undefined : problems[nodeId]?.[0];
  return nodeId === undefined || problem === undefined ? null : { nodeId, problem, nodes: nodes.length };
}
