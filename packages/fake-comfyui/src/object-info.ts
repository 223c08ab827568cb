/**
 * Turns the node definitions into what `/object_info` serves: ComfyUI's key order, file combos
 * listing the input directory, and Python's big integers written exactly.
 * @module
 */
import { CHECKPOINT_LIST, FILE_LIST, I64_MAX, I64_MIN, NODE_DEFINITIONS, U64_MAX, type InputSpec, type NodeDefinition } from './node-definitions.js';

const BIG_INTEGERS: Record<string, string> = { [U64_MAX]: '18446744073709551615', [I64_MAX]: '9223372036854775807', [I64_MIN]: '-9223372036854775807' };

/** JSON as Python's json.dumps writes it here: the big-integer sentinels become exact literals. */
export function toComfyJson(value: unknown): string {
  return JSON.stringify(value).replace(/"(__U64_MAX__|__I64_MAX__|__I64_MIN__)"/g, (_, name: string) => BIG_INTEGERS[name] as string);
}

/** A sentinel or number as the JS number validation compares with. */
export function numeric(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value in BIG_INTEGERS) return Number(BIG_INTEGERS[value]);
  return undefined;
}

const IMAGE = /\.(png|jpe?g|webp|gif|bmp|tiff?)$/i;
const VIDEO = /\.(mp4|webm|mov|mkv|avi|m4v)$/i;
const AUDIO = /\.(flac|wav|mp3|ogg|opus|m4a|aac)$/i;

/** Which input files each loader lists, by MIME class as ComfyUI filters them. */
export function filesFor(className: string, inputFiles: readonly string[]): string[] {
  const pattern = className === 'LoadVideo' ? [VIDEO] : className === 'LoadAudio' ? [AUDIO, VIDEO] : [IMAGE];
  return inputFiles.filter((f) => pattern.some((p) => p.test(f))).sort();
}

function fillFiles(className: string, spec: InputSpec, inputFiles: readonly string[], checkpoints: readonly string[]): InputSpec {
  const [type, options] = spec;
  if (type === CHECKPOINT_LIST) return [[...checkpoints], ...(options ? [options] : [])];
  if (type === FILE_LIST) return [filesFor(className, inputFiles), ...(options ? [options] : [])];
  const opts = options as Record<string, unknown> | undefined;
  if (opts?.['options'] === FILE_LIST) return [type, { ...opts, options: filesFor(className, inputFiles) }];
  return spec;
}

/** A node's input specs with its file combos filled from the input directory and its model folders. */
export function resolvedInputs(className: string, def: NodeDefinition, inputFiles: readonly string[], checkpoints: readonly string[]): NodeDefinition['input'] {
  const fill = (group: Record<string, InputSpec>): Record<string, InputSpec> =>
    Object.fromEntries(Object.entries(group).map(([name, spec]) => [name, fillFiles(className, spec, inputFiles, checkpoints)]));
  return {
    required: fill(def.input.required),
    ...(def.input.optional ? { optional: fill(def.input.optional) } : {}),
    ...(def.input.hidden ? { hidden: def.input.hidden } : {}),
  };
}

/** One class's `/object_info` entry, keys in ComfyUI's order. */
export function objectInfoEntry(className: string, def: NodeDefinition, inputFiles: readonly string[], checkpoints: readonly string[]): Record<string, unknown> {
  const input = resolvedInputs(className, def, inputFiles, checkpoints);
  const order = Object.fromEntries(Object.entries(input).map(([group, specs]) => [group, Object.keys(specs as object)]));
  return {
    input,
    input_order: order,
    output: def.output,
    output_is_list: def.output.map(() => false),
    output_name: def.output_name ?? def.output,
    name: className,
    display_name: def.display_name,
    description: def.description ?? '',
    python_module: def.python_module,
    category: def.category,
    output_node: def.output_node === true,
    ...(def.output_tooltips ? { output_tooltips: def.output_tooltips } : {}),
  };
}

/** Every class the fake knows: its own definitions plus the extra ones given as options (served as given). */
export function allObjectInfo(extra: Record<string, unknown>, inputFiles: readonly string[], checkpoints: readonly string[]): Record<string, unknown> {
  const own = Object.fromEntries(Object.entries(NODE_DEFINITIONS).map(([name, def]) => [name, objectInfoEntry(name, def, inputFiles, checkpoints)]));
  return { ...own, ...extra };
}
