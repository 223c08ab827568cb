/**
 * Which prompt a ComfyUI server is executing, and at which node, as its socket messages tell:
 * it runs one prompt at a time, so a preview frame that names no prompt (type 1) belongs to it.
 * @module
 */
import type { SocketMessage } from './comfyui-socket.js';

const ENDS = new Set(['execution_success', 'execution_error', 'execution_interrupted']);

export class ExecutingPrompt {
  private current: { promptId: string; nodeId: string | null } | null = null;

  get promptId(): string | null {
    return this.current?.promptId ?? null;
  }

  get nodeId(): string | null {
    return this.current?.nodeId ?? null;
  }

  onMessage({ type, data }: SocketMessage): void {
    const promptId = typeof data['prompt_id'] === 'string' ? data['prompt_id'] : null;
    if (promptId === null) return;
    const node = typeof data['node'] === 'string' ? data['node'] : null;
    if (ENDS.has(type) || (type === 'executing' && node === null)) {
      if (this.current?.promptId === promptId) this.current = null;
    } else if (type === 'execution_start') {
      this.current = { promptId, nodeId: null };
    } else if (type === 'executing' || type === 'progress') {
      this.current = { promptId, nodeId: node ?? (this.current?.promptId === promptId ? this.current.nodeId : null) };
    }
  }

  /** The connection dropped: what runs now is unknown until the server says. */
  reset(): void {
    this.current = null;
  }
}
