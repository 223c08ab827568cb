/**
 * A workflow must save or preview something: ComfyUI refuses a prompt with no output node ("Prompt
 * has no outputs"), so such an app would fail every run on its backend. Which classes are output
 * nodes only a backend's `/object_info` says (its `output_node`): the check is made when the
 * catalog says it for every class of the workflow, and passes otherwise.
 * @module
 */
import type { Workflow } from './app-version.js';
import { CoreError } from './errors.js';
import type { NodeInfo } from './workflow.js';

/** @throws CoreError INVALID_WORKFLOW when the catalog knows every class and none is an output node */
export function refuseWithoutOutputNode(workflow: Workflow, catalog: Readonly<Record<string, NodeInfo>>): void {
  const flags = Object.values(workflow).map((node) => catalog[node.class_type]?.output_node);
  if (flags.some((flag) => flag === undefined || flag)) return;
  throw new CoreError(
    'INVALID_WORKFLOW',
    'The workflow has no output node (such as SaveImage or PreviewImage): ComfyUI refuses every run of it ("Prompt has no outputs"). Add a node that saves the result, export it again and publish that file.',
  );
}
