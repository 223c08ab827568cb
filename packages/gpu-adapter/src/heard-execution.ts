/**
 * What the socket told of one prompt sent from here, from the moment it was sent: the execution's
 * start, each node's outputs (`executed`, sent for the nodes that ran and, since ComfyUI's
 * execution model of 2024, for the cached ones too) and its success. When it heard all of that
 * on one unbroken connection, the success message is the outcome the server's history would give
 * (the history is written from the same outputs and timestamps), and the history need not be
 * read: a real ComfyUI writes it about 190 ms after announcing the success. Anything less (a
 * reconnection, a start not heard, a timestamp missing, a server older than `tellsOutcomeOnSocket`
 * knows) leaves the history as the record; failures and interruptions are always read from it.
 * @module
 */
import type { TerminalExecutionState } from '@runload/core';
import { outputRefs } from './history-outcome.js';

export class HeardExecution {
  private startedAtMs: number | null = null;
  /** Each node's outputs, as its last `executed` message said them (the history keeps the same, by node). */
  private readonly outputs: Record<string, Record<string, unknown>> = {};

  /** @param intact the socket was connected when the prompt was sent, so it hears the prompt from its start */
  constructor(private intact: boolean) {}

  /** The socket reconnected: what it said meanwhile is lost, so what it heard is not the whole. */
  broken(): void {
    this.intact = false;
  }

  onMessage(type: string, data: Record<string, unknown>): void {
    if (type === 'execution_start') {
      this.startedAtMs = typeof data['timestamp'] === 'number' ? data['timestamp'] : null;
    } else if (type === 'executed') {
      const node = data['node'];
      const output = data['output'];
      if (typeof node === 'string' && output && typeof output === 'object') this.outputs[node] = output as Record<string, unknown>;
    }
  }

  /**
   * The outcome told by `execution_success` (its `data`), or null when the socket did not tell it
   * whole: then the history is read.
   */
  successOutcome(data: Record<string, unknown>): TerminalExecutionState | null {
    const endedAtMs = data['timestamp'];
    if (!this.intact || this.startedAtMs === null || typeof endedAtMs !== 'number') return null;
    return { state: 'succeeded', outputs: outputRefs({ outputs: this.outputs }), timing: { startedAtMs: this.startedAtMs, finishedAtMs: endedAtMs } };
  }
}
