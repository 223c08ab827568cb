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
