/** What the route handlers share with the fake: its state, node classes, worker and sockets. */
import type { FakeState } from './fake-state.js';
import type { FakeWorker, WorkerSettings } from './fake-worker.js';
import type { NodeRegistry } from './node-registry.js';
import type { SocketHub } from './socket-hub.js';

/** A prompt as `POST /prompt` received it (before validation coerced it). */
export interface AcceptedPrompt {
  readonly prompt_id: string;
  readonly number: number;
  readonly prompt: unknown;
  readonly client_id: string | undefined;
  readonly extra_data: Record<string, unknown>;
  /** When it was accepted (epoch ms), for benchmarks of what a client adds before it. */
  readonly received_at: number;
}

export interface FakeHost {
  readonly state: FakeState;
  readonly registry: NodeRegistry;
  readonly settings: WorkerSettings;
  readonly hub: SocketHub;
  readonly worker: FakeWorker;
  readonly prompts: AcceptedPrompt[];
  /** Starts the next pending prompt when the worker is free. */
  pump(): void;
  /** The port the fake listens on. */
  port(): number;
}
