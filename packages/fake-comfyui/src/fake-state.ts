/** The in-memory state of one fake ComfyUI process: queue, running slot, history, cache, files. */
import { makePng } from './png.js';
import type { PromptGraph } from './validation.js';

export interface QueueItem {
  readonly number: number;
  readonly promptId: string;
  readonly prompt: PromptGraph;
  readonly extraData: Record<string, unknown>;
  readonly outputs: string[];
}

export type HistoryMessage = [string, Record<string, unknown>];

export interface HistoryEntry {
  prompt: [number, string, unknown, Record<string, unknown>, string[]];
  outputs: Record<string, Record<string, unknown>>;
  status: { status_str: 'success' | 'error'; completed: boolean; messages: HistoryMessage[] };
  meta: Record<string, { node_id: string; display_node: string; parent_node: null; real_node_id: string }>;
}

/** What a node produced: its output values and, for output nodes, its UI dict. */
export interface CachedNode {
  readonly outputs: readonly unknown[];
  readonly ui: Record<string, unknown> | undefined;
}

export type FileType = 'input' | 'output' | 'temp';

const MAXIMUM_HISTORY_SIZE = 10000;

export function asTuple(item: QueueItem): [number, string, unknown, Record<string, unknown>, string[]] {
  return [item.number, item.promptId, item.prompt, item.extraData, item.outputs];
}

export function fileKey(type: string, subfolder: string, name: string): string {
  return `${type}/${subfolder}/${name}`;
}

/** Splits a loader value such as `sub/name.png [output]` into directory type, subfolder and name. */
export function parseReference(reference: string): { type: FileType; subfolder: string; name: string } {
  const annotated = /^(.*) \[(input|output|temp)\]$/.exec(reference);
  const path = annotated ? (annotated[1] as string) : reference;
  const slash = path.lastIndexOf('/');
  return { type: (annotated?.[2] as FileType | undefined) ?? 'input', subfolder: slash >= 0 ? path.slice(0, slash) : '', name: path.slice(slash + 1) };
}

export class FakeState {
  counter = 0;
  pending: QueueItem[] = [];
  running: QueueItem | null = null;
  /** The display node last reported as executing, replayed to a reconnecting owner. */
  runningNode: string | null = null;
  readonly history = new Map<string, HistoryEntry>();
  /** ComfyUI's classic cache: outputs by node signature, holding only the last prompt's nodes. */
  cache = new Map<string, CachedNode>();
  /** Files by `<type>/<subfolder>/<name>`; input and output survive a restart, temp does not. */
  readonly files = new Map<string, Buffer>();

  constructor() {
    // ComfyUI ships input/example.png.
    this.files.set(fileKey('input', '', 'example.png'), makePng(64, 64, (x, y) => [x * 4, y * 4, 128, 255]));
  }

  /** Forgets what a restarted ComfyUI forgets: queue, running prompt, history, cache, temp files, the counter. */
  forget(): void {
    this.counter = 0;
    this.pending = [];
    this.running = null;
    this.runningNode = null;
    this.history.clear();
    this.cache = new Map();
    for (const key of [...this.files.keys()]) if (key.startsWith('temp/')) this.files.delete(key);
  }

  queueRemaining(): number {
    return this.pending.length + (this.running ? 1 : 0);
  }

  /** Takes the next pending item in run order: lowest number first, ties by prompt id. */
  next(): QueueItem | undefined {
    let best = -1;
    this.pending.forEach((item, i) => {
      const current = this.pending[best];
      if (!current || item.number < current.number || (item.number === current.number && item.promptId < current.promptId)) best = i;
    });
    return best >= 0 ? this.pending.splice(best, 1)[0] : undefined;
  }

  addHistory(id: string, entry: HistoryEntry): void {
    this.history.delete(id);
    if (this.history.size >= MAXIMUM_HISTORY_SIZE) this.history.delete(this.history.keys().next().value as string);
    this.history.set(id, entry);
  }

  /** Top-level input file names, as the loaders' combos list them. */
  inputFiles(): string[] {
    const names: string[] = [];
    for (const key of this.files.keys()) if (key.startsWith('input//')) names.push(key.slice('input//'.length));
    return names;
  }

  readReference(reference: string): Buffer | undefined {
    const { type, subfolder, name } = parseReference(reference);
    return this.files.get(fileKey(type, subfolder, name));
  }

  /** ComfyUI's save counter: one above the highest `<base>_NNNNN_` in that folder, or 1. */
  nextCounter(type: FileType, subfolder: string, base: string): number {
    let highest = 0;
    const prefix = `${type}/${subfolder}/${base}_`;
    for (const key of this.files.keys()) {
      const match = key.startsWith(prefix) ? /^(\d+)_?\./.exec(key.slice(prefix.length)) : null;
      if (match) highest = Math.max(highest, Number(match[1]));
    }
    return highest + 1;
  }
}
