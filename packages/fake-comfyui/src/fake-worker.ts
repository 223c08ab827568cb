/**
 * The single worker of the fake: runs one prompt at a time, emitting the message sequence that a
 * real v0.3.64 was recorded sending on `/ws`, with ComfyUI's classic cache, interrupts
 * checked before each node and at each progress tick, and history written before `status` and
 * `executing{node:null}`.
 * @module
 */
import { planExecution, sha256 } from './execution-plan.js';
import { greyJpeg } from './jpeg.js';
import { asTuple, fileKey, parseReference, type CachedNode, type FakeState, type HistoryEntry, type HistoryMessage, type QueueItem } from './fake-state.js';
import { NodeException, type NodeContext } from './node-behaviours.js';
import type { NodeRegistry } from './node-registry.js';
import { pyStr } from './python-coercion.js';
import type { FakeVersion } from './version.js';

export interface Messenger {
  /** To the prompt's client only (dropped without one). */
  toClient(clientId: string | undefined, type: string, data: Record<string, unknown>): void;
  /** To the prompt's client, or to every socket when the prompt has none. */
  toClientOrAll(clientId: string | undefined, type: string, data: Record<string, unknown>): void;
  broadcastStatus(): void;
  /** A sampler step's preview image, in the form (and at the moment) each socket takes it. */
  preview(clientId: string | undefined, phase: 'metadata' | 'plain', jpeg: Buffer, metadata: Record<string, unknown>): void;
}

/** An injected node failure: the node raises `exceptionType` with `message`. */
export interface Failure {
  readonly nodeId?: string;
  readonly exceptionType?: string;
  readonly message?: string;
}

export interface WorkerSettings {
  executionMs: number;
  progressSteps: number;
  version: FakeVersion;
  /** `auto`: samplers send a preview at each step, as ComfyUI started with `--preview-method auto`. */
  previewMethod: 'auto' | 'none';
  /** About how many bytes each preview has (padded with JPEG comments); 0 for the smallest. */
  previewBytes: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isLink = (v: unknown): v is [string, number] => Array.isArray(v) && v.length === 2 && typeof v[0] === 'string';
const TRACEBACK = [
  '  File "<comfyui>/execution.py", line 496, in execute\n    output_data, output_ui, has_subgraph, has_pending_tasks = await get_output_data(prompt_id, unique_id, obj, input_data_all, execution_block_cb=execution_block_cb, pre_execute_cb=pre_execute_cb, hidden_inputs=hidden_inputs)\n',
  '  File "<comfyui>/execution.py", line 315, in get_output_data\n    return_values = await _async_map_node_over_list(prompt_id, unique_id, obj, input_data_all, obj.FUNCTION, allow_interrupt=True, execution_block_cb=execution_block_cb, pre_execute_cb=pre_execute_cb, hidden_inputs=hidden_inputs)\n',
  '  File "<comfyui>/execution.py", line 277, in process_inputs\n    result = f(**inputs)\n',
];

type Outcome = { kind: 'success' } | { kind: 'interrupted'; node: string } | { kind: 'error'; node: string; type: string; message: string };

export class FakeWorker {
  interruptRequested = false;
  failNext: Failure | null = null;
  readonly executions = new Map<string, number>();

  constructor(
    private readonly state: FakeState,
    private readonly registry: NodeRegistry,
    private readonly messenger: Messenger,
    private readonly settings: WorkerSettings,
    private readonly alive: () => number,
  ) {}

  /** Runs one item to its end; stops silently if the process "crashed" meanwhile. */
  async execute(item: QueueItem): Promise<void> {
    const generation = this.alive();
    const gone = () => this.alive() !== generation;
    const modern = this.settings.version !== 'legacy';
    const clientId = item.extraData['client_id'] as string | undefined;
    const id = item.promptId;
    const stamp = (data: Record<string, unknown>) => (modern ? { ...data, timestamp: Date.now() } : data);
    this.interruptRequested = false;
    this.executions.set(id, (this.executions.get(id) ?? 0) + 1);
    const messages: HistoryMessage[] = [];
    const record = (type: string, data: Record<string, unknown>, toAll = false) => {
      messages.push([type, data]);
      if (toAll) this.messenger.toClientOrAll(clientId, type, data);
      else this.messenger.toClient(clientId, type, data);
    };
    const failure = this.failNext;
    this.failNext = null;
    const fileHash = (node: string) => {
      const widget = this.registry.get(String(item.prompt[node]?.class_type))?.behaviour.inputFile?.widget;
      const bytes = widget ? this.state.readReference(pyStr(item.prompt[node]?.inputs?.[widget])) : undefined;
      return bytes ? sha256(bytes) : undefined;
    };
    const plan = planExecution(item, fileHash, new Set(failure ? [failure.nodeId ?? item.outputs.at(-1) ?? ''] : []));
    const failAt = failure ? (failure.nodeId && plan.order.includes(failure.nodeId) ? failure.nodeId : plan.order.at(-1)) : undefined;
    const previous = this.state.cache;
    this.state.cache = new Map(); // the classic cache keeps only what this prompt uses
    const results = new Map<string, CachedNode>();
    for (const node of plan.order) {
      const hit = previous.get(plan.signatures.get(node) as string);
      if (hit) results.set(node, hit);
      if (hit) this.state.cache.set(plan.signatures.get(node) as string, hit);
    }
    record('execution_start', stamp({ prompt_id: id }));
    record('execution_cached', stamp({ nodes: Object.keys(item.prompt).filter((n) => results.has(n)), prompt_id: id }));
    const toRun = plan.order.filter((n) => !results.has(n));
    const perNode = this.settings.executionMs / Math.max(1, toRun.length);
    const nodeStates: Record<string, Record<string, unknown>> = {};
    const progressState = (node: string, state: 'running' | 'finished', value: number, max: number) => {
      if (!modern) return;
      nodeStates[node] = { value, max, state, node_id: node, prompt_id: id, display_node_id: node, parent_node_id: null, real_node_id: node };
      this.messenger.toClientOrAll(clientId, 'progress_state', { prompt_id: id, nodes: structuredClone(nodeStates) });
    };
    const outputs: Record<string, Record<string, unknown>> = {};
    const executed: string[] = [];
    const executedMessage = (node: string, ui: Record<string, unknown>) => {
      outputs[node] = ui;
      this.messenger.toClient(clientId, 'executed', modern ? { node, display_node: node, output: ui, prompt_id: id } : { node, output: ui, prompt_id: id });
    };
    let outcome: Outcome = { kind: 'success' };
    for (const node of plan.order) {
      const classType = String(item.prompt[node]?.class_type);
      const cls = this.registry.get(classType);
      const cached = results.get(node);
      if (cached) {
        if (cached.ui) {
          executedMessage(node, cached.ui);
          progressState(node, 'finished', 1, 1);
        }
        continue;
      }
      progressState(node, 'running', 0, 1);
      this.state.runningNode = node;
      this.messenger.toClient(clientId, 'executing', modern ? { node, display_node: node, prompt_id: id } : { node, prompt_id: id });
      if (this.interruptRequested) {
        outcome = { kind: 'interrupted', node };
        break;
      }
      if (cls?.behaviour.progress) {
        const steps = Math.max(1, this.settings.progressSteps);
        for (let step = 1; step <= steps && outcome.kind === 'success'; step += 1) {
          await sleep(perNode / steps);
          if (gone()) return;
          if (this.interruptRequested) outcome = { kind: 'interrupted', node };
          else {
            const preview = this.settings.previewMethod === 'auto' ? greyJpeg(step, this.settings.previewBytes) : null;
            const metadata = { node_id: node, prompt_id: id, display_node_id: node, parent_node_id: null, real_node_id: node };
            progressState(node, 'running', step, steps);
            if (preview) this.messenger.preview(clientId, 'metadata', preview, metadata);
            this.messenger.toClientOrAll(clientId, 'progress', { value: step, max: steps, prompt_id: id, node });
            if (preview) this.messenger.preview(clientId, 'plain', preview, metadata);
          }
        }
        if (outcome.kind !== 'success') break;
      } else {
        await sleep(perNode);
        if (gone()) return;
      }
      if (node === failAt && failure) {
        outcome = { kind: 'error', node, type: failure.exceptionType ?? 'RuntimeError', message: failure.message ?? 'Fake failure' };
        break;
      }
      const inputs = Object.fromEntries(
        Object.entries(item.prompt[node]?.inputs ?? {}).map(([k, v]) => [k, isLink(v) ? results.get(v[0])?.outputs[v[1]] : v]),
      );
      let result: CachedNode;
      try {
        const run = cls?.behaviour.run(inputs, this.context()) ?? { outputs: [] };
        result = { outputs: run.outputs, ui: run.ui };
      } catch (error) {
        if (!(error instanceof NodeException)) throw error;
        outcome = { kind: 'error', node, type: error.exceptionType, message: error.message };
        break;
      }
      results.set(node, result);
      this.state.cache.set(plan.signatures.get(node) as string, result);
      if (result.ui) executedMessage(node, result.ui);
      executed.push(node);
      progressState(node, 'finished', 1, 1);
    }
    if (gone()) return;
    if (outcome.kind === 'success' && modern) record('execution_success', stamp({ prompt_id: id }));
    if (outcome.kind === 'interrupted') {
      record('execution_interrupted', stamp({ prompt_id: id, node_id: outcome.node, node_type: item.prompt[outcome.node]?.class_type, executed }), true);
    }
    if (outcome.kind === 'error') {
      const inputs: [string, unknown[]][] = Object.entries(item.prompt[outcome.node]?.inputs ?? {}).map(([k, v]) => [k, [isLink(v) ? describe(results.get(v[0])?.outputs[v[1]]) : pyStr(v)]]);
      const hidden = this.registry.get(String(item.prompt[outcome.node]?.class_type))?.hidden ?? {};
      if ('prompt' in hidden) inputs.push(['prompt', [JSON.stringify(item.prompt)]]);
      if ('extra_pnginfo' in hidden) inputs.push(['extra_pnginfo', [item.extraData['extra_pnginfo'] ?? null]]);
      record('execution_error', stamp({
        prompt_id: id, node_id: outcome.node, node_type: item.prompt[outcome.node]?.class_type, executed,
        exception_message: `${outcome.message}\n`, exception_type: outcome.type, traceback: TRACEBACK,
        current_inputs: Object.fromEntries(inputs), current_outputs: [...plan.order],
      }));
    }
    this.finish(item, outcome, messages, outputs);
    this.messenger.toClient(clientId, 'executing', { node: null, prompt_id: id });
  }

  private finish(item: QueueItem, outcome: Outcome, messages: HistoryMessage[], outputs: Record<string, Record<string, unknown>>): void {
    const modern = this.settings.version !== 'legacy';
    const ok = outcome.kind === 'success';
    const extraData = { ...item.extraData };
    // v0.3.64 deletes the API secrets when the prompt moves to history.
    delete extraData['auth_token_comfy_org'];
    delete extraData['api_key_comfy_org'];
    const entry: HistoryEntry = {
      prompt: [...asTuple(item).slice(0, 3), extraData, item.outputs] as HistoryEntry['prompt'],
      // Output nodes that finished before a failure or an interrupt keep their files in history.
      outputs,
      status: { status_str: ok ? 'success' : 'error', completed: ok, messages },
      meta: Object.fromEntries(Object.keys(outputs).map((n) => [n, { node_id: n, display_node: n, parent_node: null, real_node_id: n }])),
    };
    if (!modern) delete (entry as Partial<HistoryEntry>).meta;
    this.state.addHistory(item.promptId, entry);
    this.state.running = null;
    this.state.runningNode = null;
    this.messenger.broadcastStatus();
  }

  private context(): NodeContext {
    return {
      readFile: (reference) => this.state.readReference(reference),
      save: (prefix, ext, bytes, kind) => {
        const { subfolder, name: base } = parseReference(prefix);
        if (subfolder.split('/').includes('..') || prefix.startsWith('/')) {
          throw new NodeException(`**** ERROR: Saving image outside the output folder is not allowed.\n full_output_folder: ${subfolder}\n         output_dir: <comfyui>/${kind}`);
        }
        const filename = `${base}_${String(this.state.nextCounter(kind, subfolder, base)).padStart(5, '0')}_.${ext}`;
        this.state.files.set(fileKey(kind, subfolder, filename), bytes);
        return { filename, subfolder, type: kind };
      },
    };
  }
}

/** How a linked value shows in `current_inputs` (ComfyUI prints the tensor). */
function describe(value: unknown): string {
  const v = value as { width?: number; height?: number } | undefined;
  return v?.width && v.height ? `tensor(<1x${v.height}x${v.width}x3>)` : pyStr(value ?? null);
}
