/**
 * The single worker of the fake: runs one prompt at a time and emits the message sequence of
 * protocol §10, writing history before `status` and `executing{node:null}` as ComfyUI does.
 * @module
 */
import { NODES } from './node-library.js';
import { makePng } from './png.js';
import { asTuple, fileKey, type FakeState, type HistoryEntry, type QueueItem } from './fake-state.js';
import type { FakeVersion } from './version.js';

export interface Messenger {
  /** To the prompt's client only (dropped without one). */
  toClient(clientId: string | undefined, type: string, data: Record<string, unknown>): void;
  /** To the prompt's client, or to every socket when the prompt has none. */
  toClientOrAll(clientId: string | undefined, type: string, data: Record<string, unknown>): void;
  broadcastStatus(): void;
}

export interface Failure {
  readonly nodeId?: string;
  readonly exceptionType?: string;
  readonly message?: string;
}

export interface WorkerSettings {
  executionMs: number;
  progressSteps: number;
  version: FakeVersion;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Nodes the outputs depend on, dependencies first. */
function executionOrder(item: QueueItem): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id) || !item.prompt[id]) return;
    seen.add(id);
    for (const v of Object.values(item.prompt[id]?.inputs ?? {})) if (Array.isArray(v) && v.length === 2) visit(String(v[0]));
    order.push(id);
  };
  for (const out of item.outputs) visit(out);
  return order;
}

export class FakeWorker {
  interruptRequested = false;
  failNext: Failure | null = null;
  readonly executions = new Map<string, number>();

  constructor(
    private readonly state: FakeState,
    private readonly messenger: Messenger,
    private readonly settings: WorkerSettings,
    private readonly alive: () => number,
  ) {}

  /** Runs one item to its end; stops silently if the process "crashed" meanwhile. */
  async execute(item: QueueItem): Promise<void> {
    const generation = this.alive();
    const gone = () => this.alive() !== generation;
    const { version } = this.settings;
    const clientId = item.extraData['client_id'] as string | undefined;
    const id = item.promptId;
    this.interruptRequested = false;
    this.executions.set(id, (this.executions.get(id) ?? 0) + 1);
    const messages: [string, Record<string, unknown>][] = [];
    const record = (type: string, data: Record<string, unknown>) => {
      messages.push([type, data]);
      this.messenger.toClient(clientId, type, data);
    };
    const order = executionOrder(item);
    const cacheKey = JSON.stringify(item.prompt);
    const cached = this.state.cache.has(cacheKey);
    record('execution_start', { prompt_id: id, timestamp: Date.now() });
    record('execution_cached', { nodes: cached ? order : [], prompt_id: id, timestamp: Date.now() });
    const outputs: Record<string, Record<string, unknown>> = {};
    const failure = this.failNext;
    this.failNext = null;
    const failAt = failure ? (failure.nodeId ?? order[order.length - 1]) : undefined;
    const perNode = cached ? 0 : this.settings.executionMs / Math.max(1, order.length);
    // progress_state carries every node seen so far, finished ones included (as recorded).
    const nodeStates: Record<string, Record<string, unknown>> = {};
    const progressState = (node: string, state: 'running' | 'finished', value = 0, max = 1) => {
      if (version === 'legacy') return;
      nodeStates[node] = { value, max, state, node_id: node, prompt_id: id, display_node_id: node, parent_node_id: null, real_node_id: node };
      this.messenger.toClientOrAll(clientId, 'progress_state', { prompt_id: id, nodes: structuredClone(nodeStates) });
    };
    const executed: string[] = [];
    let outcome: 'success' | 'error' | 'interrupted' = 'success';
    for (const node of order) {
      if (gone()) return;
      const def = NODES[item.prompt[node]?.class_type as string];
      if (!def) continue;
      if (cached && !def.outputNode) continue;
      if (this.interruptRequested) {
        outcome = 'interrupted';
        const data = { prompt_id: id, node_id: node, node_type: item.prompt[node]?.class_type, executed, timestamp: Date.now() };
        messages.push(['execution_interrupted', data]);
        this.messenger.toClientOrAll(clientId, 'execution_interrupted', data);
        break;
      }
      if (!cached) {
        progressState(node, 'running');
        this.messenger.toClient(clientId, 'executing', { node, display_node: node, prompt_id: id });
      }
      if (def.progress && !cached) {
        for (let step = 1; step <= this.settings.progressSteps; step += 1) {
          await sleep(perNode / this.settings.progressSteps);
          if (gone()) return;
          if (this.interruptRequested) break;
          this.messenger.toClientOrAll(clientId, 'progress', { value: step, max: this.settings.progressSteps, prompt_id: id, node });
          progressState(node, 'running', step, this.settings.progressSteps);
        }
      } else if (perNode > 0) {
        await sleep(perNode);
        if (gone()) return;
      }
      if (node === failAt && failure) {
        outcome = 'error';
        record('execution_error', {
          prompt_id: id,
          node_id: node,
          node_type: item.prompt[node]?.class_type,
          executed,
          exception_message: `${failure.message ?? 'Fake failure'}\n`,
          exception_type: failure.exceptionType ?? 'RuntimeError',
          traceback: ['  File "execution.py", line 1, in execute\n'],
          current_inputs: {},
          current_outputs: [],
          timestamp: Date.now(),
        });
        break;
      }
      if (def.saves) {
        const ui = this.save(item, node, def.saves, cached);
        outputs[node] = ui;
        this.messenger.toClient(clientId, 'executed', { node, display_node: node, output: ui, prompt_id: id });
      }
      executed.push(node);
      progressState(node, 'finished', 1, 1);
    }
    if (gone()) return;
    if (outcome === 'success') {
      if (version !== 'legacy') record('execution_success', { prompt_id: id, timestamp: Date.now() });
      this.state.cache.add(cacheKey);
    }
    const entry: HistoryEntry = {
      prompt: asTuple(item),
      outputs,
      status: { status_str: outcome === 'success' ? 'success' : 'error', completed: outcome === 'success', messages },
      meta: Object.fromEntries(Object.keys(outputs).map((n) => [n, { node_id: n, display_node: n, parent_node: null as unknown as string, real_node_id: n }])),
    };
    this.state.history.set(id, entry);
    this.state.running = null;
    this.messenger.broadcastStatus();
    this.messenger.toClient(clientId, 'executing', { node: null, prompt_id: id });
  }

  private save(item: QueueItem, node: string, saves: NonNullable<(typeof NODES)[string]['saves']>, cached: boolean): Record<string, unknown> {
    const inputs = item.prompt[node]?.inputs ?? {};
    const prefix = String(inputs['filename_prefix'] ?? 'ComfyUI');
    const slash = prefix.lastIndexOf('/');
    const subfolder = slash >= 0 ? prefix.slice(0, slash) : '';
    const base = slash >= 0 ? prefix.slice(slash + 1) : prefix;
    const type = saves.temp ? 'temp' : 'output';
    const counterKey = `${type}/${prefix}`;
    // A cached re-run lists the files it made before and writes nothing.
    const count = cached ? (this.state.saveCounters.get(counterKey) ?? 1) : (this.state.saveCounters.get(counterKey) ?? 0) + 1;
    this.state.saveCounters.set(counterKey, count);
    const filename = `${base}_${String(count).padStart(5, '0')}_.${saves.ext}`;
    if (!cached) this.state.files.set(fileKey(type, subfolder, filename), this.fileBytes(saves.ext, count));
    const ui: Record<string, unknown> = { [saves.key]: [{ filename, subfolder, type }] };
    if (saves.animated) ui['animated'] = [true];
    return ui;
  }

  private fileBytes(ext: string, seed: number): Buffer {
    if (ext === 'png') return makePng(8, 8, (x, y) => [(x * 32 + seed) & 255, (y * 32) & 255, 128, 255]);
    if (ext === 'mp4') return Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(64)]);
    return Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(64)]);
  }
}
