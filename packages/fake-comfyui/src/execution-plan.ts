/**
 * Which nodes a prompt runs, in what order, and each node's cache signature: its class, its
 * literal inputs and its inputs' signatures, plus the hash of a loader's file (ComfyUI's
 * IS_CHANGED), so an identical prompt is served from cache and a changed input reruns downstream.
 * @module
 */
import { createHash } from 'node:crypto';
import type { QueueItem } from './fake-state.js';

export interface ExecutionPlan {
  /** Nodes the outputs depend on, dependencies first. */
  readonly order: string[];
  readonly signatures: ReadonlyMap<string, string>;
}

const isLink = (v: unknown): v is [string, number] => Array.isArray(v) && v.length === 2 && typeof v[0] === 'string';

/**
 * @param fileHash the hash of the file a loader node reads, or undefined for other nodes
 * @param salted nodes whose signature must not match anything cached (an injected failure)
 */
export function planExecution(item: QueueItem, fileHash: (nodeId: string) => string | undefined, salted: ReadonlySet<string>): ExecutionPlan {
  const order: string[] = [];
  const signatures = new Map<string, string>();
  const visit = (id: string): string => {
    const known = signatures.get(id);
    if (known !== undefined) return known;
    signatures.set(id, '');
    const node = item.prompt[id];
    const inputs = Object.entries(node?.inputs ?? {})
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, value]) => [name, isLink(value) && item.prompt[value[0]] ? ['link', visit(value[0]), value[1]] : value]);
    const raw = JSON.stringify([node?.class_type, inputs, fileHash(id) ?? null, salted.has(id) ? Math.random() : null]);
    const signature = createHash('sha256').update(raw).digest('hex');
    signatures.set(id, signature);
    order.push(id);
    return signature;
  };
  for (const out of item.outputs) visit(out);
  return { order, signatures };
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
