/**
 * The node classes one fake knows: its own (definition plus behaviour) and the extra
 * `/object_info` entries given as options, which validate by their specs and run as no-ops.
 * @module
 */
import { GENERIC_BEHAVIOUR, NODE_BEHAVIOURS, type NodeBehaviour } from './node-behaviours.js';
import { CHECKPOINTS, NODE_DEFINITIONS, type InputSpec } from './node-definitions.js';
import { allObjectInfo, resolvedInputs } from './object-info.js';

export interface NodeClass {
  readonly name: string;
  readonly required: Record<string, InputSpec>;
  readonly optional: Record<string, InputSpec>;
  /** Inputs the server fills (`prompt`, `extra_pnginfo`, ...). */
  readonly hidden: Record<string, string>;
  readonly outputNode: boolean;
  readonly returnTypes: readonly unknown[];
  readonly behaviour: NodeBehaviour;
}

interface ExtraInfo {
  input?: { required?: Record<string, InputSpec>; optional?: Record<string, InputSpec> };
  output?: unknown[];
  output_node?: boolean;
}

export class NodeRegistry {
  constructor(
    private readonly extra: Record<string, unknown> = {},
    /** What this fake's `models/checkpoints` holds. */
    readonly checkpoints: readonly string[] = CHECKPOINTS,
  ) {}

  /** The class by name, with file combos listing `inputFiles`; undefined when unknown. */
  get(name: string, inputFiles: readonly string[] = []): NodeClass | undefined {
    const def = Object.hasOwn(NODE_DEFINITIONS, name) ? NODE_DEFINITIONS[name] : undefined;
    if (def) {
      const input = resolvedInputs(name, def, inputFiles, this.checkpoints);
      return {
        name,
        required: input.required,
        optional: input.optional ?? {},
        hidden: input.hidden ?? {},
        outputNode: def.output_node === true,
        returnTypes: def.output,
        behaviour: NODE_BEHAVIOURS[name] ?? GENERIC_BEHAVIOUR,
      };
    }
    const info = Object.hasOwn(this.extra, name) ? (this.extra[name] as ExtraInfo) : undefined;
    if (!info) return undefined;
    return {
      name,
      required: info.input?.required ?? {},
      optional: info.input?.optional ?? {},
      hidden: {},
      outputNode: info.output_node === true,
      returnTypes: info.output ?? [],
      behaviour: GENERIC_BEHAVIOUR,
    };
  }

  /** Everything `/object_info` serves. */
  objectInfo(inputFiles: readonly string[]): Record<string, unknown> {
    return allObjectInfo(this.extra, inputFiles, this.checkpoints);
  }
}
