/**
 * `POST /prompt` validation, step for step as ComfyUI's `validate_prompt`/`validate_inputs`:
 * the same error types, messages, extra_info and quirks (errors of a linked
 * node reported under its id; every failed node lists every failed output after it). Literals are
 * coerced in place, as ComfyUI writes the coerced graph to the queue.
 * @module
 */
import type { NodeClass, NodeRegistry } from './node-registry.js';
import { numeric } from './object-info.js';
import { coerce, pyFloatStr, pyListRepr, pyStr, PythonValueError } from './python-coercion.js';
import type { FakeVersion } from './version.js';

export type PromptGraph = Record<string, { class_type?: unknown; inputs?: Record<string, unknown>; _meta?: { title?: string } }>;
export type NodeError = { type: string; message: string; details: string; extra_info: Record<string, unknown> };
type Result = [ok: boolean, errors: NodeError[]];

export type Validation =
  | { readonly ok: true; readonly outputs: string[]; readonly nodeErrors: Record<string, unknown> }
  | { readonly ok: false; readonly error: NodeError; readonly nodeErrors: Record<string, unknown> };

export interface ValidationContext {
  readonly registry: NodeRegistry;
  readonly version: FakeVersion;
  readonly inputFiles: readonly string[];
  readonly fileExists: (reference: string) => boolean;
}

/** A Python exception escaping a node's validation (a link to a node id that is not there). */
class InnerException extends Error {
  constructor(readonly details: string, readonly exceptionType: string) {
    super(details);
  }
}

const TRACEBACK = [
  '  File "<comfyui>/execution.py", line 808, in validate_inputs\n    r = await validate_inputs(prompt_id, prompt, o_id, validated)\n',
  '  File "<comfyui>/execution.py", line 788, in validate_inputs\n    o_class_type = prompt[o_id][\'class_type\']\n',
];

function typesOverlap(received: unknown, expected: unknown): boolean {
  if (received === expected || received === '*' || expected === '*') return true;
  if (typeof received !== 'string' || typeof expected !== 'string') return false;
  const wanted = new Set(expected.split(',').map((t) => t.trim()));
  return received.split(',').some((t) => wanted.has(t.trim()));
}

function checkLiteral(name: string, type: unknown, options: Record<string, unknown>, value: unknown, ctx: ValidationContext): NodeError | null {
  const info = [type, options];
  const show = (n: number) => (type === 'FLOAT' ? pyFloatStr(n) : pyStr(n));
  const min = numeric(options['min']);
  const max = numeric(options['max']);
  if (typeof value === 'number' && min !== undefined && value < min) {
    return { type: 'value_smaller_than_min', message: `Value ${show(value)} smaller than min of ${show(min)}`, details: name, extra_info: { input_name: name, input_config: info, received_value: value } };
  }
  if (typeof value === 'number' && max !== undefined && value > max) {
    return { type: 'value_bigger_than_max', message: `Value ${show(value)} bigger than max of ${show(max)}`, details: name, extra_info: { input_name: name, input_config: info, received_value: value } };
  }
  const combo = Array.isArray(type) ? type : type === 'COMBO' && ctx.version === '2026' ? (options['options'] as unknown[] | undefined) : undefined;
  if (combo && !combo.includes(value)) {
    const long = combo.length > 20;
    return {
      type: 'value_not_in_list', message: 'Value not in list', details: `${name}: '${pyStr(value)}' not in ${long ? `(list of length ${combo.length})` : pyListRepr(combo)}`,
      extra_info: { input_name: name, input_config: long ? null : info, received_value: value },
    };
  }
  return null;
}

function checkNode(prompt: PromptGraph, id: string, validated: Map<string, Result>, ctx: ValidationContext): Result {
  const known = validated.get(id);
  if (known) return known;
  const node = prompt[id] as NonNullable<PromptGraph[string]>;
  const inputs = (node.inputs ??= {});
  const cls = ctx.registry.get(String(node.class_type), ctx.inputFiles) as NodeClass;
  const errors: NodeError[] = [];
  let valid = true;
  const file = cls.behaviour.inputFile;
  for (const [name, spec] of [...Object.entries(cls.required), ...Object.entries(cls.optional)]) {
    const [type, options = {}] = spec as [unknown, Record<string, unknown>?];
    const info = [type, options];
    if (!(name in inputs)) {
      if (name in cls.required) errors.push({ type: 'required_input_missing', message: 'Required input is missing', details: name, extra_info: { input_name: name } });
      continue;
    }
    let value = inputs[name];
    if (Array.isArray(value)) {
      if (value.length !== 2) {
        errors.push({ type: 'bad_linked_input', message: 'Bad linked input, must be a length-2 list of [node_id, slot_index]', details: name, extra_info: { input_name: name, input_config: info, received_value: value } });
        continue;
      }
      const [source, slot] = value as [unknown, unknown];
      if (typeof source !== 'string' || !Object.hasOwn(prompt, source)) throw new InnerException(typeof source === 'string' ? `'${source}'` : pyStr(source), 'KeyError');
      const received = ctx.registry.get(String(prompt[source]?.class_type), ctx.inputFiles)?.returnTypes[Number(slot)];
      if (received === undefined) throw new InnerException('tuple index out of range', 'IndexError');
      if (!typesOverlap(received, type)) {
        errors.push({
          type: 'return_type_mismatch', message: 'Return type mismatch between linked nodes',
          details: `${name}, received_type(${pyStr(received)}) mismatch input_type(${pyStr(type)})`,
          extra_info: { input_name: name, input_config: info, received_type: received, linked_node: value },
        });
        continue;
      }
      try {
        if (!checkNode(prompt, source, validated, ctx)[0]) valid = false;
      } catch (error) {
        if (!(error instanceof InnerException)) throw error;
        valid = false;
        validated.set(source, [false, [{
          type: 'exception_during_inner_validation', message: 'Exception when validating inner node', details: error.details,
          extra_info: { input_name: name, input_config: info, exception_message: error.details, exception_type: error.exceptionType, traceback: TRACEBACK, linked_node: value },
        }]]);
      }
      continue;
    }
    if (value && typeof value === 'object' && '__value__' in value) value = inputs[name] = (value as { __value__: unknown }).__value__;
    try {
      value = inputs[name] = coerce(type, value);
    } catch (error) {
      if (!(error instanceof PythonValueError)) throw error;
      errors.push({
        type: 'invalid_input_type', message: `Failed to convert an input value to a ${pyStr(type)} value`, details: `${name}, ${pyStr(value)}, ${error.message}`,
        extra_info: { input_name: name, input_config: info, received_value: value, exception_message: error.message },
      });
      continue;
    }
    // A loader's own file check replaces the min/max/combo checks of its file widget.
    const problem = name === file?.widget ? null : checkLiteral(name, type, options, value, ctx);
    if (problem) errors.push(problem);
  }
  if (file && file.widget in inputs && !Array.isArray(inputs[file.widget]) && !ctx.fileExists(pyStr(inputs[file.widget]))) {
    errors.push({ type: 'custom_validation_failed', message: 'Custom validation failed for node', details: `${file.widget} - Invalid ${file.label} file: ${pyStr(inputs[file.widget])}`, extra_info: { input_name: file.widget } });
  }
  const result: Result = [errors.length === 0 && valid, errors];
  validated.set(id, result);
  return result;
}

function invalid(type: string, message: string, details: string, extra: Record<string, unknown> = {}, nodeErrors: Record<string, unknown> = {}): Validation {
  return { ok: false, error: { type, message, details, extra_info: extra }, nodeErrors };
}

function unknownClass(id: string, cls: unknown, title: string | undefined, version: FakeVersion): Validation {
  if (version === '2026') {
    return cls === undefined
      ? invalid('missing_node_type', `Node '${title ?? `ID #${id}`}' has no class_type. The workflow may be corrupted or a custom node is missing.`, `Node ID '#${id}'`, { node_id: id, class_type: null, node_title: title ?? null })
      : invalid('missing_node_type', `Node '${title ?? pyStr(cls)}' not found. The custom node may not be installed.`, `Node ID '#${id}'`, { node_id: id, class_type: cls, node_title: title ?? cls });
  }
  return cls === undefined
    ? invalid('invalid_prompt', 'Cannot execute because a node is missing the class_type property.', `Node ID '#${id}'`)
    : invalid('invalid_prompt', `Cannot execute because node ${pyStr(cls)} does not exist.`, `Node ID '#${id}'`);
}

/** Validates (and coerces, in place) a prompt graph. */
export function validatePrompt(prompt: PromptGraph, ctx: ValidationContext, partialTargets?: readonly string[]): Validation {
  const outputs: string[] = [];
  for (const [id, node] of Object.entries(prompt)) {
    const cls = node?.class_type;
    const known = cls === undefined ? undefined : ctx.registry.get(String(cls));
    if (!known) return unknownClass(id, cls, node?._meta?.title, ctx.version);
    if (known.outputNode && (!partialTargets || partialTargets.includes(id))) outputs.push(id);
  }
  if (outputs.length === 0) return invalid('prompt_no_outputs', 'Prompt has no outputs', '');

  const validated = new Map<string, Result>();
  const good: string[] = [];
  const ownErrors: NodeError[] = [];
  const nodeErrors: Record<string, { errors: NodeError[]; dependent_outputs: string[]; class_type: unknown }> = {};
  for (const out of outputs) {
    let result: Result;
    try {
      result = checkNode(prompt, out, validated, ctx);
    } catch (error) {
      if (!(error instanceof InnerException)) throw error;
      result = [false, [{ type: 'exception_during_validation', message: 'Exception when validating node', details: error.details, extra_info: { exception_type: error.exceptionType, traceback: TRACEBACK.slice(1) } }]];
      validated.set(out, result);
    }
    if (result[0]) {
      good.push(out);
      continue;
    }
    ownErrors.push(...result[1]);
    for (const [id, [ok, reasons]] of validated) {
      if (ok || reasons.length === 0) continue;
      const entry = (nodeErrors[id] ??= { errors: reasons, dependent_outputs: [], class_type: prompt[id]?.class_type });
      entry.dependent_outputs.push(out);
    }
  }
  if (good.length === 0) {
    const details = ownErrors.map((e) => `${e.message}: ${e.details}`).join('\n');
    return invalid('prompt_outputs_failed_validation', 'Prompt outputs failed validation', details, {}, nodeErrors);
  }
  return { ok: true, outputs: good, nodeErrors };
}
