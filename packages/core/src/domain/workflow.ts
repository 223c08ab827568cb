/**
 * Reading API-format workflows and deriving their typed inputs (`<nodeId>:<widgetName>`)
 * the way ComfyUI's `/object_info` describes widgets.
 * @module
 */
import { inputKey, type InputSpec, type InputType, type Workflow, type WorkflowNode } from './app-version.js';
import { CoreError } from './errors.js';
import { addNodeProblem, firstNodeProblem, type NodeProblems } from './node-problems.js';

/** One input spec as `/object_info` reports it: `[TYPE, options?]`. */
export type ObjectInfoInputSpec = readonly [unknown, Record<string, unknown>?] | readonly unknown[];

/** The part of a node's `/object_info` entry that typing and the output check need. */
export interface NodeInfo {
  readonly input?: {
    readonly required?: Record<string, ObjectInfoInputSpec>;
    readonly optional?: Record<string, ObjectInfoInputSpec>;
  };
  /** Whether the class saves or shows a result (a backend says it for every class; absent when not known). */
  readonly output_node?: boolean;
}

const UI_FORMAT_HINT =
  'This is a UI-format workflow (it has "nodes" and "links"). runload needs the API format: in ComfyUI, ' +
  'enable the dev mode options in the settings, then use "Export (API)" (Workflow → Export (API)) and publish that file.';

/** Checks that `json` is an API-format workflow and returns it. Throws INVALID_WORKFLOW otherwise. */
export function parseWorkflow(json: unknown): Workflow {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new CoreError('INVALID_WORKFLOW', 'A workflow must be a JSON object of nodes keyed by node id');
  }
  const obj = json as Record<string, unknown>;
  if (Array.isArray(obj['nodes']) && Array.isArray(obj['links'])) {
    throw new CoreError('INVALID_WORKFLOW', UI_FORMAT_HINT);
  }
  const ids = Object.keys(obj);
  if (ids.length === 0) throw new CoreError('INVALID_WORKFLOW', 'The workflow has no nodes');
  for (const id of ids) {
    const node = obj[id] as Record<string, unknown> | null;
    if (
      node === null || typeof node !== 'object' || typeof node['class_type'] !== 'string' ||
      node['inputs'] === null || typeof node['inputs'] !== 'object' || Array.isArray(node['inputs'])
    ) {
      throw new CoreError('INVALID_WORKFLOW', `Node "${id}" is not an API-format node (it needs "class_type" and "inputs")`);
    }
  }
  refuseDanglingLinks(obj as Workflow);
  return obj as Workflow;
}

/**
 * Every link names a node of the workflow: ComfyUI refuses a prompt whose link points nowhere,
 * so such a workflow would fail every run on its backend. Refused at once instead, each named.
 */
function refuseDanglingLinks(workflow: Workflow): void {
  const dangling: NodeProblems = {};
  for (const [nodeId, node] of Object.entries(workflow)) {
    for (const [field, value] of Object.entries(node.inputs)) {
      if (!isLink(value) || Object.hasOwn(workflow, value[0])) continue;
      const source = value[0];
      addNodeProblem(dangling, nodeId, { field, reason: 'link_to_missing_node', message: `input "${field}" links to node "${source}", which the workflow does not have` });
    }
  }
  const first = firstNodeProblem(dangling);
  if (!first) return;
  const more = first.nodes > 1 ? ` (and in ${first.nodes - 1} more node${first.nodes > 2 ? 's' : ''})` : '';
  throw new CoreError('INVALID_WORKFLOW', `Node "${first.nodeId}": ${first.problem.message}${more}`, { details: { node_errors: dangling } });
}

/** A link is `["<sourceNodeId>", <outputIndex>]`: fixed wiring, not an input. */
export function isLink(value: unknown): value is readonly [string, number] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number';
}

/** Loader widgets whose value is an uploaded file, when `/object_info` does not say so. */
const MEDIA_WIDGETS: Record<string, InputType> = {
  'LoadImage.image': 'IMAGE',
  'LoadImageMask.image': 'IMAGE',
  'LoadImageOutput.image': 'IMAGE',
  'LoadVideo.file': 'VIDEO',
  'VHS_LoadVideo.video': 'VIDEO',
  'LoadAudio.audio': 'AUDIO',
};

interface Typing {
  readonly type: InputType;
  readonly min?: number;
  readonly max?: number;
  readonly step?: number;
  readonly options?: readonly (string | number)[];
}

function numberOpt(opts: Record<string, unknown>, name: string): number | undefined {
  const v = opts[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function withBounds(type: 'INT' | 'FLOAT', opts: Record<string, unknown>): Typing {
  const t: { type: InputType; min?: number; max?: number; step?: number } = { type };
  const min = numberOpt(opts, 'min');
  const max = numberOpt(opts, 'max');
  const step = numberOpt(opts, 'step');
  if (min !== undefined) t.min = type === 'INT' ? Math.max(min, Number.MIN_SAFE_INTEGER) : min;
  if (max !== undefined) t.max = type === 'INT' ? Math.min(max, Number.MAX_SAFE_INTEGER) : max;
  if (step !== undefined) t.step = step;
  return t;
}

/** Classifies one `/object_info` input spec; null for sockets (not editable). */
export function classifySpec(spec: ObjectInfoInputSpec): Typing | null {
  const head = spec[0];
  const opts = (spec[1] && typeof spec[1] === 'object' ? spec[1] : {}) as Record<string, unknown>;
  if (opts['forceInput'] === true) return null;
  const media: InputType | null =
    opts['image_upload'] === true ? 'IMAGE' : opts['video_upload'] === true ? 'VIDEO' : opts['audio_upload'] === true ? 'AUDIO' : null;
  if (Array.isArray(head) || head === 'COMBO') {
    if (media) return { type: media };
    const list = Array.isArray(head) ? head : opts['options'];
    if (!Array.isArray(list)) return { type: 'COMBO' };
    const options = list.filter((o): o is string | number => typeof o === 'string' || typeof o === 'number');
    return { type: 'COMBO', options };
  }
  switch (head) {
    case 'INT':
      return withBounds('INT', opts);
    case 'FLOAT':
      return withBounds('FLOAT', opts);
    case 'STRING':
      return { type: 'STRING' };
    case 'BOOLEAN':
      return { type: 'BOOLEAN' };
    default:
      return null;
  }
}

function typingFromLiteral(value: unknown): Typing | null {
  if (typeof value === 'string') return { type: 'STRING' };
  if (typeof value === 'boolean') return { type: 'BOOLEAN' };
  if (typeof value === 'number') return { type: 'FLOAT' };
  return null;
}

function specFor(info: NodeInfo | undefined, widget: string): ObjectInfoInputSpec | undefined {
  return info?.input?.required?.[widget] ?? info?.input?.optional?.[widget];
}

function typeWidget(node: WorkflowNode, widget: string, value: unknown, info: NodeInfo | undefined): Typing | null {
  const known = MEDIA_WIDGETS[`${node.class_type}.${widget}`];
  if (known) return { type: known };
  const spec = specFor(info, widget);
  if (spec) return classifySpec(spec);
  return typingFromLiteral(value);
}

/**
 * Every literal widget value of the workflow as a typed input, in node then widget order.
 * `catalog` maps class types to their `/object_info` entries; unknown classes are typed from
 * their literals. `expose`, when given, keeps only those keys (each must exist).
 */
export function deriveInputs(workflow: Workflow, catalog: Readonly<Record<string, NodeInfo>>, expose?: readonly string[]): InputSpec[] {
  const all: InputSpec[] = [];
  for (const [nodeId, node] of Object.entries(workflow)) {
    for (const [widget, value] of Object.entries(node.inputs)) {
      if (isLink(value) || value === null || typeof value === 'object') continue;
      const typing = typeWidget(node, widget, value, catalog[node.class_type]);
      if (!typing) continue;
      let dflt: unknown = value;
      if (typing.type === 'INT' && typeof value === 'number' && !Number.isSafeInteger(value)) {
        dflt = Math.min(Math.max(Math.round(value), Number.MIN_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
      }
      all.push({ key: inputKey(nodeId, widget), nodeId, widget, nodeType: node.class_type, ...typing, default: dflt });
    }
  }
  if (!expose) return all;
  const twice = expose.find((k, i) => expose.indexOf(k) !== i);
  if (twice !== undefined) throw new CoreError('INVALID_WORKFLOW', `--expose names ${twice} twice`);
  const byKey = new Map(all.map((s) => [s.key, s]));
  const missing = expose.filter((k) => !byKey.has(k));
  if (missing.length > 0) {
    throw new CoreError('INVALID_WORKFLOW', `--expose names inputs the workflow does not have: ${missing.join(', ')}`);
  }
  return expose.map((k) => byKey.get(k) as InputSpec);
}
