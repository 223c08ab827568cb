/**
 * A run's progress as a whole, from ComfyUI's messages: nodes done out of nodes to run, refined
 * by the step progress of the node running now. `execution_cached` names nodes that will not run;
 * `progress_state` (0.3.64+) reports each node's state and steps; `executing` and `progress` (every
 * version) name the node running and its steps. Without the prompt's node list (a run this process
 * did not send), only the running node's own steps are known.
 * @module
 */

export interface ProgressReading {
  readonly value: number;
  readonly max: number;
  readonly nodeId: string | null;
}

export class RunProgress {
  private readonly cached = new Set<string>();
  private readonly finished = new Set<string>();
  private current: { node: string; value: number; max: number } | null = null;
  /** The prompt failed or was interrupted: its end does not complete it. */
  private stopped = false;

  /** @param nodes the ids of the prompt's nodes, when known */
  constructor(private readonly nodes: ReadonlySet<string> | null) {}

  /** The progress after this message, or null when the message says nothing about it. */
  onMessage(type: string, data: Record<string, unknown>): ProgressReading | null {
    switch (type) {
      case 'execution_cached':
        if (Array.isArray(data['nodes'])) for (const n of data['nodes']) this.cached.add(String(n));
        return this.reading();
      case 'execution_error':
      case 'execution_interrupted':
        this.stopped = true;
        return null;
      case 'execution_success':
        return this.complete();
      case 'executing': {
        const node = typeof data['node'] === 'string' ? data['node'] : null;
        // The end of the prompt; older servers say nothing else when it succeeded.
        if (node === null) return this.stopped ? null : this.complete();
        // A node that starts means the one before it ended (servers without progress_state say no more).
        if (this.current && this.current.node !== node) this.finished.add(this.current.node);
        if (this.current?.node !== node) this.current = { node, value: 0, max: 1 };
        return this.reading();
      }
      case 'progress': {
        const node = typeof data['node'] === 'string' ? data['node'] : (this.current?.node ?? null);
        const value = Number(data['value']);
        const max = Number(data['max']);
        if (node === null || !Number.isFinite(value) || !(max > 0)) return null;
        if (this.current && this.current.node !== node) this.finished.add(this.current.node);
        this.current = { node, value: Math.min(value, max), max };
        return this.reading();
      }
      case 'progress_state': {
        const states = data['nodes'];
        if (!states || typeof states !== 'object') return null;
        for (const [id, raw] of Object.entries(states as Record<string, Record<string, unknown>>)) {
          const node = String(raw?.['node_id'] ?? id);
          if (raw?.['state'] === 'finished') this.finished.add(node);
          else if (raw?.['state'] === 'running') {
            const max = Number(raw['max']);
            const value = Number(raw['value']);
            this.current = { node, value: Number.isFinite(value) ? value : 0, max: max > 0 ? max : 1 };
          }
        }
        return this.reading();
      }
      default:
        return null;
    }
  }

  /** Every node ran: what was missed of it (messages sent before anyone listened) is done too. */
  private complete(): ProgressReading | null {
    for (const n of this.nodes ?? []) this.finished.add(n);
    if (this.current) this.finished.add(this.current.node);
    return this.reading();
  }

  private reading(): ProgressReading | null {
    const running = this.current && !this.finished.has(this.current.node) ? this.current : null;
    if (!this.nodes) {
      return running ? { value: running.value, max: running.max, nodeId: running.node } : null;
    }
    const toRun = [...this.nodes].filter((n) => !this.cached.has(n));
    if (toRun.length === 0) return null;
    const done = toRun.filter((n) => this.finished.has(n)).length;
    const partial = running && this.nodes.has(running.node) ? Math.min(1, running.value / running.max) : 0;
    const value = Math.min(toRun.length, Math.round((done + partial) * 100) / 100);
    return { value, max: toRun.length, nodeId: running?.node ?? null };
  }
}
