/**
 * Published app versions: an immutable ComfyUI API-format workflow plus the typed inputs
 * (`<nodeId>:<widgetName>`) that callers may set.
 * @module
 */
import type { BackendLabels } from './backend.js';

/** ComfyUI's own vocabulary for widget types. */
export const INPUT_TYPES = ['STRING', 'INT', 'FLOAT', 'BOOLEAN', 'COMBO', 'IMAGE', 'VIDEO', 'AUDIO'] as const;
export type InputType = (typeof INPUT_TYPES)[number];
export type MediaInputType = 'IMAGE' | 'VIDEO' | 'AUDIO';

export function isMediaInputType(type: InputType): type is MediaInputType {
  return type === 'IMAGE' || type === 'VIDEO' || type === 'AUDIO';
}

/** One node of an API-format workflow. A link is `[sourceNodeId, outputIndex]`. */
export interface WorkflowNode {
  readonly class_type: string;
  readonly inputs: Record<string, unknown>;
  readonly _meta?: { readonly title?: string };
}

/** An API-format ("Export (API)") workflow: node id → node. */
export type Workflow = Record<string, WorkflowNode>;

export interface InputSpec {
  /** `<nodeId>:<widgetName>` */
  readonly key: string;
  readonly nodeId: string;
  readonly widget: string;
  /** The node's `class_type`. */
  readonly nodeType: string;
  readonly type: InputType;
  /** The published literal value, used when the caller leaves the input out. */
  readonly default: unknown;
  readonly min?: number;
  readonly max?: number;
  readonly step?: number;
  /** COMBO options. */
  readonly options?: readonly (string | number)[];
}

export interface AppVersion {
  readonly id: string;
  readonly appId: string;
  readonly name: string;
  readonly workflow: Workflow;
  readonly inputs: readonly InputSpec[];
  readonly createdAt: Date;
  readonly deletedAt: Date | null;
  /**
   * Set on the hidden version made for a graph submitted as is (a Comfy API v2 job): the hash of
   * that graph, one version per distinct graph. Such versions are not listed as apps.
   */
  readonly graphHash?: string;
  /** Labels a backend must have to run this version (`--require`); none when absent. */
  readonly requireLabels?: BackendLabels;
}

export function inputKey(nodeId: string, widget: string): string {
  return `${nodeId}:${widget}`;
}
