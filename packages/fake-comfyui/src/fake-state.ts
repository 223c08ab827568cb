/** The in-memory state of one fake ComfyUI process: queue, running slot, history, files. */

export interface QueueItem {
  readonly number: number;
  readonly promptId: string;
  readonly prompt: Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  readonly extraData: Record<string, unknown>;
  readonly outputs: string[];
}

export interface HistoryEntry {
  prompt: [number, string, unknown, Record<string, unknown>, string[]];
  outputs: Record<string, Record<string, unknown>>;
  status: { status_str: 'success' | 'error'; completed: boolean; messages: [string, Record<string, unknown>][] };
  meta: Record<string, Record<string, string>>;
}

export function asTuple(item: QueueItem): [number, string, unknown, Record<string, unknown>, string[]] {
  return [item.number, item.promptId, item.prompt, item.extraData, item.outputs];
}

export class FakeState {
  counter = 0;
  pending: QueueItem[] = [];
  running: QueueItem | null = null;
  readonly history = new Map<string, HistoryEntry>();
  /** Files by `<type>/<subfolder>/<name>`; input and output survive a restart, temp does not. */
  readonly files = new Map<string, Buffer>();
  readonly saveCounters = new Map<string, number>();
  /** Prompts that completed successfully, by a stable key: an identical one is served from cache. */
  readonly cache = new Set<string>();

  /** Forgets what a restarted ComfyUI forgets. */
  forget(): void {
    this.counter = 0;
    this.pending = [];
    this.running = null;
    this.history.clear();
    this.cache.clear();
    for (const key of [...this.files.keys()]) if (key.startsWith('temp/')) this.files.delete(key);
  }

  /** Pending items in run order: lowest number first, ties by prompt id. */
  next(): QueueItem | undefined {
    this.pending.sort((a, b) => a.number - b.number || (a.promptId < b.promptId ? -1 : 1));
    return this.pending.shift();
  }

  inputNames(): Set<string> {
    const names = new Set<string>();
    for (const key of this.files.keys()) {
      if (!key.startsWith('input/')) continue;
      const [, subfolder, name] = key.split('/');
      names.add(subfolder ? `${subfolder}/${name}` : (name as string));
    }
    return names;
  }
}

export function fileKey(type: string, subfolder: string, name: string): string {
  return `${type}/${subfolder}/${name}`;
}
