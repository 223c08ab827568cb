/** `POST /prompt` validation as ComfyUI does it (protocol §3, §4), on the fake's node library. */
import { NODES, type InputSpec } from './node-library.js';
import type { FakeVersion } from './version.js';

type Prompt = Record<string, { class_type?: unknown; inputs?: Record<string, unknown>; _meta?: { title?: string } }>;

export interface NodeError {
  readonly type: string;
  readonly message: string;
  readonly details: string;
  readonly extra_info: Record<string, unknown>;
}

export type Validation =
  | { readonly ok: true; readonly outputs: string[]; readonly nodeErrors: Record<string, unknown> }
  | { readonly ok: false; readonly body: Record<string, unknown> };

function failure(type: string, message: string, details: string, extra: Record<string, unknown> = {}, nodeErrors: Record<string, unknown> = {}): Validation {
  return { ok: false, body: { error: { type, message, details, extra_info: extra }, node_errors: nodeErrors } };
}

function isLink(v: unknown): v is [string, number] {
  return Array.isArray(v);
}

function checkLiteral(name: string, spec: InputSpec, value: unknown, version: FakeVersion): NodeError | null {
  const [type, opts = {}] = spec;
  const info = { input_name: name, input_config: spec, received_value: value };
  if (type === 'INT' || type === 'FLOAT') {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isFinite(n) || (type === 'INT' && typeof value === 'string' && !/^-?\d+$/.test(value))) {
      return { type: 'invalid_input_type', message: `Failed to convert an input value to a ${type} value`, details: `${name}, ${String(value)}`, extra_info: info };
    }
    const min = opts['min'] as number | undefined;
    const max = opts['max'] as number | undefined;
    if (min !== undefined && n < min) return { type: 'value_smaller_than_min', message: `Value ${n} smaller than min of ${min}`, details: name, extra_info: info };
    if (max !== undefined && n > max) return { type: 'value_bigger_than_max', message: `Value ${n} bigger than max of ${max}`, details: name, extra_info: info };
    return null;
  }
  const list = Array.isArray(type) ? type : type === 'COMBO' && version === '2026' ? (opts['options'] as unknown[] | undefined) : undefined;
  if (list && list.length > 0 && !list.includes(value)) {
    const shown = list.length > 20 ? `(list of length ${list.length})` : JSON.stringify(list);
    return { type: 'value_not_in_list', message: 'Value not in list', details: `${name}: '${String(value)}' not in ${shown}`, extra_info: info };
  }
  return null;
}

/** Validates a prompt; `inputFiles` are the names uploaded to the input directory. */
export function validatePrompt(prompt: Prompt, inputFiles: ReadonlySet<string>, version: FakeVersion): Validation {
  for (const [id, node] of Object.entries(prompt)) {
    const cls = node?.class_type;
    if (typeof cls !== 'string' || !NODES[cls]) {
      const title = node?._meta?.title ?? (typeof cls === 'string' ? cls : id);
      if (version === '2026') {
        return failure('missing_node_type', typeof cls === 'string' ? `Node '${title}' not found. The custom node may not be installed.` : `Node '${title}' has no class_type.`, `Node ID '#${id}'`, {
          node_id: id,
          class_type: cls ?? null,
          node_title: title,
        });
      }
      return failure(
        'invalid_prompt',
        typeof cls === 'string' ? `Cannot execute because node ${cls} does not exist.` : 'Cannot execute because a node is missing the class_type property.',
        `Node ID '#${id}'`,
      );
    }
  }
  const outputs = Object.entries(prompt).filter(([, n]) => NODES[n.class_type as string]?.outputNode).map(([id]) => id);
  if (outputs.length === 0) return failure('prompt_no_outputs', 'Prompt has no outputs', '');

  const errorsByNode = new Map<string, NodeError[]>();
  const validated = new Map<string, boolean>();
  const validateNode = (id: string): boolean => {
    const known = validated.get(id);
    if (known !== undefined) return known;
    validated.set(id, true);
    const node = prompt[id];
    const def = node ? NODES[node.class_type as string] : undefined;
    if (!node || !def) return false;
    const errors: NodeError[] = [];
    let upstreamOk = true;
    const specs = { ...def.required, ...(def.optional ?? {}) };
    for (const [name, spec] of Object.entries(specs)) {
      const value = node.inputs?.[name];
      if (value === undefined) {
        if (name in def.required) errors.push({ type: 'required_input_missing', message: 'Required input is missing', details: name, extra_info: { input_name: name } });
        continue;
      }
      if (isLink(value)) {
        if (value.length !== 2) {
          errors.push({ type: 'bad_linked_input', message: 'Bad linked input, must be a length-2 list of [node_id, slot_index]', details: name, extra_info: { input_name: name, received_value: value } });
        } else if (!prompt[String(value[0])]) {
          errors.push({ type: 'exception_during_inner_validation', message: 'Exception when validating inner node', details: `'${String(value[0])}'`, extra_info: { input_name: name } });
        } else if (!validateNode(String(value[0]))) {
          upstreamOk = false;
        }
        continue;
      }
      if (def.inputFile?.widget === name) {
        if (!inputFiles.has(String(value))) {
          errors.push({ type: 'custom_validation_failed', message: 'Custom validation failed for node', details: `${name} - Invalid ${def.inputFile.label} file: ${String(value)}`, extra_info: { input_name: name } });
        }
        continue;
      }
      const problem = checkLiteral(name, spec, value, version);
      if (problem) errors.push(problem);
    }
    if (errors.length > 0) errorsByNode.set(id, errors);
    const ok = errors.length === 0 && upstreamOk;
    validated.set(id, ok);
    return ok;
  };

  const good: string[] = [];
  const nodeErrors: Record<string, { errors: NodeError[]; dependent_outputs: string[]; class_type: string }> = {};
  for (const out of outputs) {
    const before = new Set(errorsByNode.keys());
    if (validateNode(out)) {
      good.push(out);
      continue;
    }
    for (const [id, errors] of errorsByNode) {
      const entry = nodeErrors[id] ?? { errors, dependent_outputs: [], class_type: String(prompt[id]?.class_type) };
      if (!before.has(id) || entry.dependent_outputs.length > 0 || id === out) entry.dependent_outputs.push(out);
      nodeErrors[id] = entry;
    }
  }
  if (good.length === 0) {
    return failure('prompt_outputs_failed_validation', 'Prompt outputs failed validation', '', {}, nodeErrors);
  }
  return { ok: true, outputs: good, nodeErrors };
}
